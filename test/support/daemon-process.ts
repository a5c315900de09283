import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { waitUntil } from './wait';
import { createTestDatabaseSync, dropTestDatabaseSync, sharedSecretsEnv } from './postgres';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const DAEMON_ENTRY = join(REPO_ROOT, 'dist', 'main.js');

export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * `TEST_STORE=postgresql` (npm run test:pg) gives each data dir a daemon process runs on its own fresh PostgreSQL
 * database, as test-app does for in-process daemons; a daemon restarted on the same data dir finds it again. They
 * are dropped after the test file (test/jest.pg.config.js runs `dropProcessDatabases` in an `afterAll`).
 */
const ON_POSTGRES = process.env.TEST_STORE === 'postgresql';
const databasesByDataDir = new Map<string, { url: string; name: string }>();

function storeEnv(env: Record<string, string>): Record<string, string> {
  const dataDir = env.SERVICE_DATA_DIR;
  if (!ON_POSTGRES || env.SERVICE_DATABASE_URL !== undefined || dataDir === undefined) return {};
  let database = databasesByDataDir.get(dataDir);
  if (!database) {
    database = createTestDatabaseSync();
    databasesByDataDir.set(dataDir, database);
  }
  return { ...sharedSecretsEnv(join(dataDir, 'keys')), SERVICE_DATABASE_URL: database.url };
}

export function dropProcessDatabases(): void {
  for (const database of databasesByDataDir.values()) dropTestDatabaseSync(database.name);
  databasesByDataDir.clear();
}

/** Runs the built daemon (`node dist/main.js`) as a real process; `npm test` builds it first. */
export function spawnDaemon(env: Record<string, string>): DaemonProcess {
  let output = '';
  const child = spawn(process.execPath, [DAEMON_ENTRY], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      SERVICE_RUNTIME_SUPERVISE: 'false',
      SERVICE_SIGNUP_RATE_LIMIT: '0',
      ...storeEnv(env),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  return { child, output: () => output, exited };
}

/** Resolves with the listening URL once the daemon logs `daemon_started`. */
export async function waitForStart(daemon: DaemonProcess, timeoutMs = 60000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = daemon
      .output()
      .split('\n')
      .find((l) => l.includes('"event":"daemon_started"'));
    if (line) return (JSON.parse(line) as { address: string }).address;
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited early:\n${daemon.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`daemon did not start in time:\n${daemon.output()}`);
}

/**
 * Resolves with the first log line carrying `event`. The daemon batches its log (up to 100 ms), so a line about
 * something that just happened is awaited, never read at once.
 */
export async function waitForLogEvent(
  daemon: Pick<DaemonProcess, 'output'>,
  event: string,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const line = await waitUntil(
    () =>
      daemon
        .output()
        .split('\n')
        .find((l) => l.includes(`"event":"${event}"`)),
    timeoutMs,
    `the log line ${event}`,
  );
  return JSON.parse(line) as Record<string, unknown>;
}
