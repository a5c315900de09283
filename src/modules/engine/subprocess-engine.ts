import { spawn } from 'node:child_process';
import { AppError } from '../../common/errors';
import { EngineErrorBody, EngineReply, EngineRequest, EngineResult } from './engine.types';
import { KILL_GRACE_MS, WORKER_ENV } from './engine-worker';

export interface SubprocessOptions {
  readonly binaryPath: string;
  readonly computeTimeoutMs: number;
  readonly acquireTimeoutMs: number;
  /** One-shot processes allowed at once; more requests wait for a slot like pool requests wait for a worker. */
  readonly concurrency: number;
}

/** The engine binary could not be run at all (missing, not executable, crashed without an answer). */
export class SubprocessFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubprocessFailedError';
  }
}

const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** The degraded path: one `simulate < request.json` process per request. */
export class SubprocessEngine {
  private running = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly options: SubprocessOptions) {}

  /** Throws AppError engine_busy / engine_timeout, or SubprocessFailedError. */
  async run(request: EngineRequest): Promise<EngineReply> {
    await this.acquire();
    try {
      return await this.spawnOnce(request);
    } finally {
      this.running--;
      this.waiters.shift()?.();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        clearTimeout(timer);
        this.running++;
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new AppError('engine_busy', undefined, undefined, { 'retry-after': '1' }));
      }, this.options.acquireTimeoutMs);
      this.waiters.push(grant);
    });
  }

  private spawnOnce(request: EngineRequest): Promise<EngineReply> {
    return new Promise((resolve, reject) => {
      // spawn (not fork): the child never copies the daemon's heap, so its start cost does not grow with it.
      const child = spawn(this.options.binaryPath, [], { stdio: ['pipe', 'pipe', 'pipe'], env: WORKER_ENV });
      const out: Buffer[] = [];
      let outBytes = 0;
      let stderr = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, this.options.computeTimeoutMs + KILL_GRACE_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
        else out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2048)));
      child.stdin.on('error', () => undefined);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new SubprocessFailedError(`cannot run ${this.options.binaryPath}: ${error.message}`));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(
            new AppError(
              'engine_timeout',
              `The computation exceeded ENGINE_COMPUTE_TIMEOUT_S (${this.options.computeTimeoutMs / 1000} s).`,
            ),
          );
          return;
        }
        const reply = parseOutput(Buffer.concat(out).toString('utf8'), code);
        if (reply) resolve(reply);
        else {
          const how = signal ? `signal ${signal}` : `exit code ${String(code)}`;
          reject(
            new SubprocessFailedError(
              `the engine ended with ${how} and no answer${stderr ? `: ${stderr.trim()}` : ''}`,
            ),
          );
        }
      });
      child.stdin.end(JSON.stringify(request));
    });
  }
}

function parseOutput(text: string, code: number | null): EngineReply | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'object' && error !== null) return { type: 'error', error: error as EngineErrorBody };
  return code === 0 ? { type: 'result', result: body as EngineResult } : undefined;
}
