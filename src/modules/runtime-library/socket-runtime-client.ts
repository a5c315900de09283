import { FramedSocket, FramedSocketClosedError, FrameTimeoutError } from '../../common/framed-socket';
import {
  RuntimeCallError,
  RuntimeClient,
  RuntimeExecution,
  RuntimeHealth,
  RuntimeManifest,
  RuntimeModule,
  RuntimeTimeoutError,
  RuntimeUnreachableError,
} from './runtime.types';

async function openConnection(socketPath: string): Promise<FramedSocket> {
  try {
    return await FramedSocket.connect(socketPath);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new RuntimeUnreachableError(socketPath, code ?? message);
  }
}

function isObject(frame: unknown): frame is Record<string, unknown> {
  return typeof frame === 'object' && frame !== null && !Array.isArray(frame);
}

function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function isModule(value: unknown): value is RuntimeModule {
  const m = value as Partial<RuntimeModule> | null;
  return typeof m?.name === 'string' && typeof m.engine === 'string' && Array.isArray(m.functions);
}

/** One request in flight per connection; a connection that failed or timed out is never reused. */
export class SocketRuntimeClient implements RuntimeClient {
  private readonly idle: FramedSocket[] = [];

  constructor(
    private readonly socketPath: string,
    private readonly timeoutMs: number,
    private readonly maxIdle = 4,
  ) {}

  async manifest(): Promise<RuntimeManifest> {
    const frame = await this.call({ type: 'manifest' });
    const modules = Array.isArray(frame.modules) ? frame.modules.filter(isModule) : [];
    return { version: textOf(frame.version, 'unknown'), modules };
  }

  async health(): Promise<RuntimeHealth> {
    const frame = await this.call({ type: 'health' });
    const modules = Array.isArray(frame.modules)
      ? (frame.modules as { name?: unknown; status?: unknown }[]).map((m) => ({
          name: textOf(m.name, 'unknown'),
          status: textOf(m.status, 'unknown'),
        }))
      : [];
    return {
      status: textOf(frame.status, 'unknown'),
      version: typeof frame.version === 'string' ? frame.version : undefined,
      uptimeS: typeof frame.uptime_s === 'number' ? frame.uptime_s : undefined,
      modules,
    };
  }

  async execute(module: string, fn: string, args: unknown, requestId: string): Promise<RuntimeExecution> {
    const frame = await this.call({ type: 'execute', module, function: fn, args, request_id: requestId });
    return {
      requestId: frame.request_id,
      result: frame.result,
      latencyMs: typeof frame.latency_ms === 'number' ? frame.latency_ms : 0,
      engineUsed: typeof frame.engine_used === 'string' ? frame.engine_used : 'native',
    };
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.destroy();
  }

  private async call(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    let frame: Record<string, unknown>;
    const pooled = this.takeIdle();
    try {
      frame = await this.roundTrip(pooled ?? (await openConnection(this.socketPath)), message);
    } catch (error) {
      // A pooled connection may have been closed by a daemon restart we have not noticed yet: one fresh try.
      if (!pooled || !(error instanceof RuntimeUnreachableError)) throw error;
      frame = await this.roundTrip(await openConnection(this.socketPath), message);
    }
    if (frame.type === 'error') {
      const error = (frame.error ?? {}) as { code?: unknown; message?: unknown };
      throw new RuntimeCallError(
        textOf(error.code, 'runtime_error'),
        textOf(error.message, 'The runtime failed.'),
      );
    }
    return frame;
  }

  private async roundTrip(
    connection: FramedSocket,
    message: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    let frame: unknown;
    try {
      frame = await connection.request(message, this.timeoutMs);
    } catch (error) {
      connection.destroy();
      if (error instanceof FrameTimeoutError) throw new RuntimeTimeoutError(error.waitedMs);
      if (error instanceof FramedSocketClosedError)
        throw new RuntimeUnreachableError(this.socketPath, error.reason);
      throw error;
    }
    if (!isObject(frame)) {
      connection.destroy();
      throw new RuntimeCallError('invalid_frame', 'The runtime answered with a frame that is not an object.');
    }
    this.release(connection);
    return frame;
  }

  private takeIdle(): FramedSocket | undefined {
    while (this.idle.length > 0) {
      const connection = this.idle.pop();
      if (connection?.isIdle) return connection;
      connection?.destroy();
    }
    return undefined;
  }

  private release(connection: FramedSocket): void {
    if (connection.isIdle && this.idle.length < this.maxIdle) this.idle.push(connection);
    else connection.destroy();
  }
}
