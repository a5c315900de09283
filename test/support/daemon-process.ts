import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const DAEMON_ENTRY = join(REPO_ROOT, 'dist', 'main.js');

export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** Runs the built daemon (`node dist/main.js`) as a real process; `npm test` builds it first. */
export function spawnDaemon(env: Record<string, string>): DaemonProcess {
  let output = '';
  const child = spawn(process.execPath, [DAEMON_ENTRY], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', SERVICE_RUNTIME_SUPERVISE: 'false', ...env },
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
