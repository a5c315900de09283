import { connect, Socket } from 'node:net';
import { encodeFrame, FrameDecoder } from '../../common/framing';
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

interface Pending {
  resolve(frame: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One socket to the daemon. The daemon answers each connection's frames in order, so replies match FIFO. */
class RuntimeConnection {
  private readonly decoder = new FrameDecoder();
  private readonly pending: Pending[] = [];
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly socketPath: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new RuntimeUnreachableError(socketPath, error.message)));
    socket.on('close', () => this.fail(new RuntimeUnreachableError(socketPath, 'the connection closed')));
  }

  get isUsable(): boolean {
    return !this.closed && this.pending.length === 0;
  }

  request(message: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    if (this.closed)
      return Promise.reject(new RuntimeUnreachableError(this.socketPath, 'the connection closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new RuntimeTimeoutError(timeoutMs));
        this.socket.destroy();
      }, timeoutMs);
      this.pending.push({ resolve, reject, timer });
      this.socket.write(encodeFrame(message));
    });
  }

  destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let frames: unknown[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.fail(
        new RuntimeUnreachableError(this.socketPath, error instanceof Error ? error.message : 'bad frame'),
      );
      this.socket.destroy();
      return;
    }
    for (const frame of frames) {
      const waiter = this.pending.shift();
      if (!waiter) continue;
      clearTimeout(waiter.timer);
      if (typeof frame === 'object' && frame !== null && !Array.isArray(frame)) {
        waiter.resolve(frame as Record<string, unknown>);
      } else {
        waiter.reject(
          new RuntimeCallError('invalid_frame', 'The runtime answered with a frame that is not an object.'),
        );
      }
    }
  }

  private fail(error: Error): void {
    this.closed = true;
    for (const waiter of this.pending.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }
}

function openConnection(socketPath: string): Promise<RuntimeConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path: socketPath });
    const onError = (error: NodeJS.ErrnoException): void => {
      socket.destroy();
      reject(new RuntimeUnreachableError(socketPath, error.code ?? error.message));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(new RuntimeConnection(socket, socketPath));
    });
  });
}

function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function isModule(value: unknown): value is RuntimeModule {
  const m = value as Partial<RuntimeModule> | null;
  return typeof m?.name === 'string' && typeof m.engine === 'string' && Array.isArray(m.functions);
}

/** Talks to the runtime daemon over its Unix socket, keeping a few idle connections warm between calls. */
export class SocketRuntimeClient implements RuntimeClient {
  private readonly idle: RuntimeConnection[] = [];

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
    connection: RuntimeConnection,
    message: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    try {
      const frame = await connection.request(message, this.timeoutMs);
      this.release(connection);
      return frame;
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  private takeIdle(): RuntimeConnection | undefined {
    while (this.idle.length > 0) {
      const connection = this.idle.pop();
      if (connection?.isUsable) return connection;
      connection?.destroy();
    }
    return undefined;
  }

  private release(connection: RuntimeConnection): void {
    if (connection.isUsable && this.idle.length < this.maxIdle) this.idle.push(connection);
    else connection.destroy();
  }
}
