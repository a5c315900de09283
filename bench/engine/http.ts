/**
 * HTTP benchmark of POST /v1/simulate (10,000 runs × 5 uniform variables): the warm pool's p50 round trip next to
 * the engine's own compute_ms, and the subprocess fallback's p50 beside it. Each mode runs the built daemon
 * (dist/main.js) as a real process with its own data dir, signs up once for an API key, warms up, then sends
 * requests one after another over one keep-alive connection.
 *
 *   bash bench/engine/http.sh                  # N=400 requests per mode; writes docs/BENCHMARKS.md
 *   N=1000 bash bench/engine/http.sh
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const REQUESTS = Number(process.env.N ?? 400);
const WARMUP = 50;

const BODY = {
  runs: 10_000,
  seed: 42,
  scenario: {
    variables: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((v, i) => [v, { low: -i, high: 10 + i }])),
    objective: 'maximize_net_value',
    model: 'a * b - c + d * e',
  },
};

interface Daemon {
  readonly url: string;
  stop(): Promise<void>;
}

async function startDaemon(env: Record<string, string>): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-'));
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"event":"daemon_started"'));
      if (line) resolveUrl((JSON.parse(line) as { address: string }).address.replace('[::1]', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited with ${String(code)}:\n${output}`)));
  });
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function apiKey(url: string): Promise<string> {
  const response = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${Date.now()}@example.com`,
      password: 'benchmark-password-1',
      name: 'Bench',
    }),
  });
  const body = (await response.json()) as { api_key?: { raw_key?: string } };
  if (!response.ok || !body.api_key?.raw_key) throw new Error(`sign-up failed (${response.status})`);
  return body.api_key.raw_key;
}

interface Sample {
  readonly wallMs: number;
  readonly computeMs: number;
  readonly mode: string;
}

async function measure(url: string, key: string, count: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const payload = JSON.stringify(BODY);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: payload,
    });
    const body = (await response.json()) as { compute_ms: number; engine_mode: string };
    const wallMs = performance.now() - started;
    if (response.status !== 200)
      throw new Error(`POST /v1/simulate answered ${response.status}: ${JSON.stringify(body)}`);
    samples.push({ wallMs, computeMs: body.compute_ms, mode: body.engine_mode });
  }
  return samples;
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const fmt = (ms: number): string => ms.toFixed(2);

async function runMode(
  label: string,
  env: Record<string, string>,
): Promise<{ label: string; samples: Sample[] }> {
  const daemon = await startDaemon(env);
  try {
    const key = await apiKey(daemon.url);
    await measure(daemon.url, key, WARMUP);
    return { label, samples: await measure(daemon.url, key, REQUESTS) };
  } finally {
    await daemon.stop();
  }
}

async function main(): Promise<void> {
  const pool = await runMode('pool', { ENGINE_POOL_SIZE: '1' });
  const fallback = await runMode('subprocess_fallback', {
    ENGINE_POOL_SIZE: '0',
    RUNTIME_FALLBACK_MODE: 'allow',
  });
  const rows = [pool, fallback].map(({ label, samples }) => {
    const modes = [...new Set(samples.map((s) => s.mode))].join(',');
    if (modes !== label) throw new Error(`expected engine_mode ${label}, got ${modes}`);
    const wall = samples.map((s) => s.wallMs);
    const compute = samples.map((s) => s.computeMs);
    const overhead = samples.map((s) => s.wallMs - s.computeMs);
    return `| ${label} | ${samples.length} | ${fmt(quantile(wall, 0.5))} | ${fmt(quantile(wall, 0.95))} | ${fmt(quantile(compute, 0.5))} | ${fmt(quantile(overhead, 0.5))} |`;
  });
  const section = [
    '<!-- bench:engine-http:start -->',
    '## Engine over HTTP: `POST /v1/simulate`, 10,000 runs × 5 variables',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ` +
      'the built daemon as a process, one client sending requests one after another over a keep-alive connection ' +
      `(${WARMUP} warm-up requests first). Wall is the client's round trip; compute is the engine's own \`compute_ms\`; ` +
      'overhead is wall − compute per request (HTTP, auth, validation, framing, recording the run).',
    '',
    '```sh',
    `N=${REQUESTS} bash bench/engine/http.sh`,
    '```',
    '',
    '| engine_mode | requests | wall p50 (ms) | wall p95 (ms) | compute_ms p50 | overhead p50 (ms) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '<!-- bench:engine-http:end -->',
  ].join('\n');
  process.stdout.write(`${section}\n`);

  const file = join(ROOT, 'docs', 'BENCHMARKS.md');
  let doc = '# Benchmarks\n';
  try {
    doc = readFileSync(file, 'utf8');
  } catch {
    // first benchmark to write the file
  }
  const start = doc.indexOf('<!-- bench:engine-http:start -->');
  const end = doc.indexOf('<!-- bench:engine-http:end -->');
  doc =
    start >= 0 && end > start
      ? doc.slice(0, start) + section + doc.slice(end + '<!-- bench:engine-http:end -->'.length)
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, doc);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
