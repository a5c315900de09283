import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root, from sdk/dist-test/test/support. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
/** The daemon needs the project's runtime (Node 24) whatever Node runs these tests. */
const DAEMON_NODE = process.env.SDK_TEST_DAEMON_NODE ?? join(REPO_ROOT, 'node_modules', '.bin', 'node');

export interface Daemon {
  readonly baseURL: string;
  readonly dataDir: string;
  /** The bootstrap (owner) key of the first, operator, organization. */
  readonly ownerKey: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Boots the built daemon (`dist/main.js`) on a free loopback port with a fresh data dir and signs up an owner. */
export async function startDaemon(env: Record<string, string> = {}): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sdk-daemon-'));
  let output = '';
  const child: ChildProcess = spawn(DAEMON_NODE, [join(REPO_ROOT, 'dist', 'main.js')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      SERVICE_RUNTIME_SUPERVISE: 'false',
      SERVICE_PORT: '0',
      SERVICE_DATA_DIR: dataDir,
      ENGINE_POOL_SIZE: '1',
      SERVICE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseURL = await waitForStart(() => output, child);
    const ownerKey = await signUp(baseURL, 'owner@sdk.test');
    return { baseURL, dataDir, ownerKey, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForStart(output: () => string, child: ChildProcess): Promise<string> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const line = output()
      .split('\n')
      .find((candidate) => candidate.includes('"event":"daemon_started"'));
    if (line) return (JSON.parse(line) as { address: string }).address;
    if (child.exitCode !== null) throw new Error(`the daemon exited early:\n${output()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`the daemon did not start in time:\n${output()}`);
}

/** POST /auth/signup over plain fetch (the SDK has no sign-up method); returns the bootstrap key. */
export async function signUp(baseURL: string, email: string): Promise<string> {
  const response = await fetch(`${baseURL}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple', name: 'SDK Test' }),
  });
  const body = (await response.json()) as { api_key?: { raw_key?: string } };
  if (response.status !== 201 || !body.api_key?.raw_key)
    throw new Error(`sign-up failed: ${response.status}`);
  return body.api_key.raw_key;
}
