import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { AppLogger } from '../../common/logging';
import { doublingDelayMs } from '../../common/backoff';

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** A child that lived this long counts as healthy again: the next crash starts the backoff from the beginning. */
const STABLE_AFTER_MS = 10_000;
const READY_TIMEOUT_MS = 5_000;

export interface SupervisorStatus {
  readonly running: boolean;
  readonly pid: number | null;
  readonly restarts: number;
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// Development mode only: under systemd the runtime is its own unit.
export class RuntimeSupervisor {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restarts = 0;
  private failuresInARow = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly killOnExit = (): void => {
    this.child?.kill('SIGKILL');
  };

  constructor(
    private readonly binaryPath: string,
    private readonly socketPath: string,
    private readonly logger: AppLogger,
  ) {}

  async start(): Promise<boolean> {
    mkdirSync(dirname(this.socketPath), { recursive: true, mode: 0o700 });
    process.once('exit', this.killOnExit);
    this.spawnChild();
    return this.waitUntilReady(READY_TIMEOUT_MS);
  }

  status(): SupervisorStatus {
    return { running: this.child?.exitCode === null, pid: this.child?.pid ?? null, restarts: this.restarts };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    process.off('exit', this.killOnExit);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(forced);
  }

  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.stopping) {
      if (await canConnect(this.socketPath)) return true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return false;
  }

  private spawnChild(): void {
    const startedAt = Date.now();
    // --parent-pid makes the child ask the kernel for SIGTERM when the daemon dies, even by SIGKILL.
    const child = spawn(this.binaryPath, ['--serve', this.socketPath, '--parent-pid', String(process.pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter((l) => l.trim() !== '')) {
        this.logger.debug({ event: 'runtime_library_output', line }, 'runtime-library daemon output');
      }
    });
    child.once('error', (error) => {
      this.logger.error(
        { event: 'runtime_library_spawn_failed', binary: this.binaryPath, err: error },
        'the runtime-library daemon could not be started',
      );
    });
    child.once('spawn', () => {
      this.logger.info(
        { event: 'runtime_library_started', pid: child.pid, socket: this.socketPath },
        'runtime-library daemon started',
      );
    });
    child.once('close', (code, signal) => {
      if (this.stopping) return;
      this.failuresInARow = Date.now() - startedAt >= STABLE_AFTER_MS ? 1 : this.failuresInARow + 1;
      const delay = doublingDelayMs(this.failuresInARow, FIRST_BACKOFF_MS, MAX_BACKOFF_MS);
      this.logger.warn(
        { event: 'runtime_library_exited', code, signal, restart_in_ms: delay },
        'runtime-library daemon exited; restarting',
      );
      this.restartTimer = setTimeout(() => {
        this.restarts += 1;
        this.spawnChild();
      }, delay);
      this.restartTimer.unref();
    });
  }
}
