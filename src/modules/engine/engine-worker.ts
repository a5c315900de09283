import { ChildProcess, spawn } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FramedSocket, FramedSocketClosedError, FrameTimeoutError } from '../../common/framed-socket';
import { EngineErrorBody, EngineReply, EngineRequest, EngineResult } from './engine.types';

export class WorkerLostError extends Error {
  constructor(reason: string) {
    super(`the engine worker was lost: ${reason}`);
    this.name = 'WorkerLostError';
  }
}

/** The worker did not answer a run within its budget; the caller kills it. */
export class WorkerTimeoutError extends Error {
  constructor(readonly budgetMs: number) {
    super(`the engine worker did not answer within ${budgetMs} ms`);
    this.name = 'WorkerTimeoutError';
  }
}

export class WorkerStartError extends Error {
  constructor(
    readonly reason: 'spawn_failed' | 'exited' | 'ready_timeout' | 'hello_timeout' | 'bad_hello',
    message: string,
  ) {
    super(message);
    this.name = 'WorkerStartError';
  }
}

export interface WorkerHandle {
  readonly pid: number;
  readonly version: string;
  readonly isAlive: boolean;
  run(request: EngineRequest, budgetMs: number): Promise<EngineReply>;
  ping(timeoutMs: number): Promise<void>;
  kill(): void;
  /** Graceful stop: close the socket (the worker exits on EOF), SIGKILL after a grace period. */
  retire(): void;
  onExit(listener: () => void): void;
}

export interface WorkerLauncher {
  launch(): Promise<WorkerHandle>;
}

export interface SocketWorkerOptions {
  readonly binaryPath: string;
  readonly socketDir: string;
  readonly readyTimeoutMs: number;
  readonly frameTimeoutMs: number;
}

/** Grace added to the engine's own deadline before the daemon gives up on a worker and kills it. */
export const KILL_GRACE_MS = 250;
const RETIRE_GRACE_MS = 2000;
const CONNECT_POLL_MS = 5;
const STDERR_TAIL_BYTES = 2048;

/** Workers inherit nothing from the daemon's environment (which holds its secrets). */
export const WORKER_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LC_ALL: 'C',
});

let socketSequence = 0;

export class SocketWorkerLauncher implements WorkerLauncher {
  constructor(private readonly options: SocketWorkerOptions) {}

  async launch(): Promise<WorkerHandle> {
    const path = join(this.options.socketDir, `engine-${process.pid}-${++socketSequence}.sock`);
    removeQuietly(path);
    // spawn (not fork): the child never copies the daemon's heap, so its start cost does not grow with it.
    const child = spawn(this.options.binaryPath, ['--serve', path, '--parent-pid', String(process.pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: WORKER_ENV,
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const describeExit = (): string =>
      `the engine worker exited (code ${String(child.exitCode)}, signal ${String(child.signalCode)})` +
      (stderr.trim() ? `: ${stderr.trim()}` : '');

    let connection: FramedSocket | undefined;
    try {
      connection = await this.connect(path, child, () => spawnError, describeExit);
      removeQuietly(path);
      const hello = await connection.next(this.options.frameTimeoutMs).catch((error: unknown) => {
        if (error instanceof FrameTimeoutError) {
          throw new WorkerStartError(
            'hello_timeout',
            `no hello from the engine worker within ${error.waitedMs} ms`,
          );
        }
        throw new WorkerStartError('exited', describeExit());
      });
      const { version, pid } = parseHello(hello);
      return new SocketWorker(child, connection, pid, version);
    } catch (error) {
      connection?.destroy();
      child.kill('SIGKILL');
      removeQuietly(path);
      throw error;
    }
  }

  private async connect(
    path: string,
    child: ChildProcess,
    spawnError: () => Error | undefined,
    describeExit: () => string,
  ): Promise<FramedSocket> {
    const deadline = Date.now() + this.options.readyTimeoutMs;
    for (;;) {
      const failed = spawnError();
      if (failed)
        throw new WorkerStartError(
          'spawn_failed',
          `cannot start ${this.options.binaryPath}: ${failed.message}`,
        );
      if (child.exitCode !== null || child.signalCode !== null)
        throw new WorkerStartError('exited', describeExit());
      try {
        return await FramedSocket.connect(path);
      } catch {
        if (Date.now() >= deadline) {
          throw new WorkerStartError(
            'ready_timeout',
            `the engine worker did not create its socket within ${this.options.readyTimeoutMs} ms`,
          );
        }
        await sleep(CONNECT_POLL_MS);
      }
    }
  }
}

function parseHello(frame: unknown): { version: string; pid: number } {
  const hello = (frame ?? {}) as { type?: unknown; version?: unknown; pid?: unknown };
  if (hello.type !== 'hello' || typeof hello.version !== 'string' || typeof hello.pid !== 'number') {
    throw new WorkerStartError(
      'bad_hello',
      `the engine worker's first frame is not a hello: ${JSON.stringify(frame)}`,
    );
  }
  return { version: hello.version, pid: hello.pid };
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // absent already
  }
}

class SocketWorker implements WorkerHandle {
  private runSequence = 0;
  private exited = false;
  private readonly exitListeners: (() => void)[] = [];

  constructor(
    private readonly child: ChildProcess,
    private readonly connection: FramedSocket,
    readonly pid: number,
    readonly version: string,
  ) {
    const gone = (): void => {
      if (this.exited) return;
      this.exited = true;
      for (const listener of this.exitListeners.splice(0)) listener();
    };
    child.once('exit', gone);
    connection.onClose(() => {
      // Without its connection the worker is useless; it exits on EOF by itself, this makes sure of it.
      this.child.kill('SIGKILL');
      gone();
    });
  }

  get isAlive(): boolean {
    return !this.exited;
  }

  onExit(listener: () => void): void {
    if (this.exited) listener();
    else this.exitListeners.push(listener);
  }

  async run(request: EngineRequest, budgetMs: number): Promise<EngineReply> {
    const id = `r${++this.runSequence}`;
    let frame: unknown;
    try {
      frame = await this.connection.request(
        { type: 'run', id, deadline_ms: budgetMs, request },
        budgetMs + KILL_GRACE_MS,
      );
    } catch (error) {
      if (error instanceof FrameTimeoutError) throw new WorkerTimeoutError(budgetMs);
      throw new WorkerLostError(error instanceof FramedSocketClosedError ? error.message : String(error));
    }
    const reply = (frame ?? {}) as { type?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (reply.id !== id) throw this.violation(`a reply for "${String(reply.id)}" while waiting for "${id}"`);
    if (reply.type === 'result' && typeof reply.result === 'object' && reply.result !== null) {
      return { type: 'result', result: reply.result as EngineResult };
    }
    if (reply.type === 'error' && typeof reply.error === 'object' && reply.error !== null) {
      return { type: 'error', error: reply.error as EngineErrorBody };
    }
    throw this.violation(`an unexpected frame ${JSON.stringify(frame).slice(0, 200)}`);
  }

  async ping(timeoutMs: number): Promise<void> {
    const frame = (await this.connection.request({ type: 'ping' }, timeoutMs)) as { type?: unknown } | null;
    if (frame?.type !== 'pong') throw this.violation('a ping answered with something else than pong');
  }

  kill(): void {
    this.child.kill('SIGKILL');
    this.connection.destroy();
  }

  retire(): void {
    this.connection.close();
    setTimeout(() => {
      if (!this.exited) this.child.kill('SIGKILL');
    }, RETIRE_GRACE_MS).unref();
  }

  private violation(what: string): WorkerLostError {
    this.kill();
    return new WorkerLostError(`protocol violation: ${what}`);
  }
}
