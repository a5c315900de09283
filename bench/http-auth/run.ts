import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { BENCH_DATABASE_URL, storeEnv } from '../support/daemon';
import { median } from '../support/stats';

/**
 * Requests per second of `GET /v1/me` with an API key against `GET /v1/health` (no credential), on one booted
 * daemon (`dist/main.js`), measured alternately in the same run so both see the same machine load.
 * Usage: bench/http-auth/run.sh [--duration S] [--connections N] [--rounds R] [--cpu-prof DIR]
 * `--cpu-prof DIR` starts the daemon under `node --cpu-prof` and leaves its .cpuprofile in DIR (open it in Chrome
 * DevTools or speedscope); profiled figures are slower than unprofiled ones.
 * `BENCH_DATABASE_URL=postgres://…/EMPTY_DB` runs the daemon on PostgreSQL as a replica would (docs/scale-out.md):
 * no API-key cache there, so every `/v1/me` reads its key from the database.
 */
const ROOT = resolve(__dirname, '..', '..', '..', '..');

function textOption(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
}

function option(name: string, fallback: number): number {
  const value = textOption(name);
  return value === undefined ? fallback : Number(value);
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
}

async function waitUntilUp(baseUrl: string, daemon: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (daemon.exitCode !== null) throw new Error(`daemon exited with ${daemon.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/v1/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('daemon did not start');
}

/** CPU seconds (user + system) the daemon has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  pid: number,
) {
  const deadline = performance.now() + seconds * 1000;
  const cpuBefore = cpuSeconds(pid);
  let ok = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const res = await pool.request({ path, method: 'GET', headers });
      await res.body.dump();
      if (res.statusCode === 200) ok += 1;
      else failed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const cpu = cpuSeconds(pid) - cpuBefore;
  return { rps: ok / ((performance.now() - started) / 1000), perCpuSecond: cpu > 0 ? ok / cpu : 0, failed };
}

async function main(): Promise<void> {
  const duration = option('duration', 5);
  const connections = option('connections', 32);
  const rounds = option('rounds', 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-http-auth-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const profileDir = textOption('cpu-prof');
  const profiling = profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [];
  const daemon = spawn(process.execPath, [...profiling, join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      SERVICE_PORT: String(port),
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SIGNUP_ENABLED: 'true',
      SERVICE_RUNTIME_SUPERVISE: 'false',
      ...storeEnv(dataDir),
    },
    stdio: 'ignore',
  });
  try {
    await waitUntilUp(baseUrl, daemon);
    const signup = await fetch(`${baseUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', password: 'benchmark passphrase', name: 'Bench' }),
    });
    const key = ((await signup.json()) as { api_key: { raw_key: string } }).api_key.raw_key;
    const pool = new Pool(baseUrl, { connections });
    const withKey = { authorization: `Bearer ${key}` };
    const pid = daemon.pid ?? 0;
    const loadBefore = loadavg()[0];
    await load(pool, '/v1/health', {}, 2, connections, pid);
    await load(pool, '/v1/me', withKey, 2, connections, pid);
    const health: number[] = [];
    const me: number[] = [];
    const healthCpu: number[] = [];
    const meCpu: number[] = [];
    let failures = 0;
    for (let round = 0; round < rounds; round += 1) {
      const h = await load(pool, '/v1/health', {}, duration, connections, pid);
      const m = await load(pool, '/v1/me', withKey, duration, connections, pid);
      health.push(h.rps);
      me.push(m.rps);
      healthCpu.push(h.perCpuSecond);
      meCpu.push(m.perCpuSecond);
      failures += h.failed + m.failed;
    }
    await pool.close();
    const ratio = median(me) / median(health);
    const fmt = (v: number): string => v.toFixed(0);
    process.stdout.write(
      [
        `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
        `settings: ${connections} connections, ${rounds} rounds of ${duration}s per route, alternating`,
        `store: ${BENCH_DATABASE_URL ? 'PostgreSQL (BENCH_DATABASE_URL; no key cache, every request reads its key)' : 'SQLite (keys cached in memory)'}`,
        `load average (1 min): ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`,
        `GET /v1/health      rps per round: ${health.map(fmt).join(', ')}  median ${fmt(median(health))}` +
          `  spread ${fmt(Math.min(...health))}–${fmt(Math.max(...health))}`,
        `GET /v1/me (key)    rps per round: ${me.map(fmt).join(', ')}  median ${fmt(median(me))}` +
          `  spread ${fmt(Math.min(...me))}–${fmt(Math.max(...me))}`,
        `ratio /v1/me ÷ /v1/health: ${(ratio * 100).toFixed(1)}% (goal ≥ 70%)`,
        `requests per daemon CPU-second per round: health ${healthCpu.map(fmt).join(', ')}; me ${meCpu.map(fmt).join(', ')}`,
        `requests per daemon CPU-second: health ${fmt(median(healthCpu))}, me ${fmt(median(meCpu))} ` +
          `(ratio ${((median(meCpu) / median(healthCpu)) * 100).toFixed(1)}%; insensitive to other load on the machine)`,
        `non-200 answers: ${failures}`,
        '',
      ].join('\n'),
    );
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
