/** Shared pieces of the benchmarks: the built daemon as a real process, an API key, and docs/BENCHMARKS.md. */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root, from `.tmp/<dir>/bench/support/` where the benchmarks are compiled to. */
export const ROOT = resolve(__dirname, '..', '..', '..', '..');

export interface BenchDaemon {
  readonly url: string;
  /** The daemon's process id, for /proc (RSS, open descriptors). */
  readonly pid: number;
  /** Where its log goes (one JSON line an entry). */
  readonly logFile: string;
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

/**
 * The built daemon as a process on a fresh data dir. `root`: another checkout whose built daemon runs. Its log goes to a file, as under systemd it goes to the journal:
 * a pipe drained by the bench's own busy event loop fills up, and the daemon writes its log lines synchronously, so
 * the bench would stall the daemon it measures (and, drained at once, wake the client inside measured round trips).
 */
export async function startDaemon(
  env: Record<string, string>,
  options: { readonly nodeArgs?: readonly string[]; readonly root?: string } = {},
): Promise<BenchDaemon> {
  const root = options.root ?? ROOT;
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-'));
  // The daemon's Node flags as shipped, then the bench run's, e.g. BENCH_DAEMON_NODE_ARGS="--cpu-prof
  // --cpu-prof-dir=/tmp/prof" (a flag given twice: V8 takes the last, so "--max-semi-space-size=16" A/Bs it).
  const nodeArgs = [
    ...productionNodeFlags(root),
    ...(process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
    ...(options.nodeArgs ?? []),
  ];
  const logFile = join(dataDir, 'daemon.log');
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'dist', 'main.js')], {
    cwd: root,
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
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`the daemon exited with ${String(code)}:\n${tailOf(logFile, 16_384)}`)),
    ),
  );
  exited.catch(() => undefined);
  const url = await Promise.race([exited, startedAddress(logFile)]);
  return {
    url,
    pid: child.pid ?? 0,
    logFile,
    stop: async () => {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** USER_HZ: /proc counts CPU time in ticks of 1/100 s on Linux, whatever the kernel's own tick. */
const CLOCK_TICKS = 100;

/** CPU time a process has used so far (user and system, every thread), in milliseconds. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** package.json's `config.nodeFlags`: the Node flags the daemon runs with (`npm start`, `/usr/bin/decisiond`). */
function productionNodeFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    config?: { nodeFlags?: string };
  };
  return (manifest.config?.nodeFlags ?? '').split(' ').filter((a) => a !== '');
}

/** The last `bytes` of a file: a soak's log grows past what one string can hold. */
function tailOf(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The address of the daemon_started line, once the daemon has written it to its log file. */
async function startedAddress(logFile: string): Promise<string> {
  for (;;) {
    const line = readFileSync(logFile, 'utf8')
      .split('\n')
      .find((l) => l.includes('"event":"daemon_started"'));
    if (line) return (JSON.parse(line) as { address: string }).address.replace('[::1]', '127.0.0.1');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function signupKey(url: string, email = `bench-${randomUUID()}@example.com`): Promise<string> {
  const response = await fetch(`${url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
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

/** One JSON call to the daemon; a non-2xx answer throws with its body. */
export async function call(
  url: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}
