/** Shared pieces of the benchmarks: the built daemon as a real process, an API key, and docs/BENCHMARKS.md. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root, from `.tmp/<dir>/bench/support/` where the benchmarks are compiled to. */
export const ROOT = resolve(__dirname, '..', '..', '..', '..');

export interface BenchDaemon {
  readonly url: string;
  /** The daemon's process id, for /proc (RSS, open descriptors). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** An empty PostgreSQL database to run the daemon on instead of its SQLite file (docs/scale-out.md). */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL;

/**
 * What SERVICE_DATABASE_URL requires beside it with BENCH_DATABASE_URL (nothing without): fresh secrets, since the
 * bench daemon is alone on its database, and the keys and datasets dirs replicas share, under `dir`.
 */
export function storeEnv(dir: string): Record<string, string> {
  if (!BENCH_DATABASE_URL) return {};
  return {
    SERVICE_DATABASE_URL: BENCH_DATABASE_URL,
    SERVICE_JWT_SECRET: randomBytes(32).toString('hex'),
    SERVICE_API_KEY_PEPPER: randomBytes(32).toString('hex'),
    SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_KEYS_DIR: join(dir, 'shared-keys'),
    SERVICE_DATASETS_DIR: join(dir, 'shared-datasets'),
  };
}

export async function startDaemon(env: Record<string, string>): Promise<BenchDaemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-'));
  // Node flags for the daemon in a bench run, e.g. BENCH_DAEMON_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_PORT: '0',
      // Or as NODE_OPTIONS, as bench/jobs passes them (a preload, a CPU profile).
      ...(process.env.BENCH_DAEMON_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.BENCH_DAEMON_NODE_OPTIONS }
        : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 1_000_000) output = output.slice(-100_000);
      const line = output.split('\n').find((l) => l.includes('"event":"daemon_started"'));
      if (line) resolveUrl((JSON.parse(line) as { address: string }).address.replace('[::1]', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited with ${String(code)}:\n${output}`)));
  });
  child.stdout.removeAllListeners('data');
  child.stdout.resume();
  return {
    url,
    pid: child.pid ?? 0,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function signupKey(url: string): Promise<string> {
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

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function machineLine(): string {
  return `${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`;
}

/** Replaces (or appends) the section between `<!-- bench:<name>:start -->` and `...:end -->` in docs/BENCHMARKS.md. */
export function writeSection(name: string, lines: readonly string[]): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = [start, ...lines, end].join('\n');
  process.stdout.write(`${section}\n`);
  const file = join(ROOT, 'docs', 'BENCHMARKS.md');
  let doc = '# Benchmarks\n';
  try {
    doc = readFileSync(file, 'utf8');
  } catch {
    // the first benchmark creates the file
  }
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  doc =
    from >= 0 && to > from
      ? doc.slice(0, from) + section + doc.slice(to + end.length)
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, doc);
}
