import { connect, Socket } from 'node:net';
import { encodeFrame, FrameDecoder } from '../../common/framing';

export class ConnectionClosedError extends Error {
  constructor(reason: string) {
    super(`the engine worker connection closed: ${reason}`);
    this.name = 'ConnectionClosedError';
  }
}

export class FrameTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`no frame from the engine worker within ${waitedMs} ms`);
    this.name = 'FrameTimeoutError';
  }
}

interface Waiter {
  resolve(frame: unknown): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * The daemon's side of one worker socket. The protocol is strictly request/reply with one request in flight, so
 * replies are matched to waiters in order; a frame nobody waits for is kept for the next `next()`.
 */
export class FrameConnection {
  private readonly decoder = new FrameDecoder();
  private readonly inbox: unknown[] = [];
  private readonly waiters: Waiter[] = [];
  private closedWith: Error | undefined;
  private readonly closeListeners: ((error: Error) => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.shut(new ConnectionClosedError(error.message)));
    socket.on('close', () => this.shut(new ConnectionClosedError('end of stream')));
  }

  /** Connects once; rejects with the socket error (ENOENT, ECONNREFUSED, ...). */
  static open(path: string): Promise<FrameConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ path });
      const onError = (error: Error): void => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        resolve(new FrameConnection(socket));
      });
    });
  }

  get isOpen(): boolean {
    return this.closedWith === undefined;
  }

  onClose(listener: (error: Error) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  send(message: unknown): void {
    if (this.closedWith) throw this.closedWith;
    this.socket.write(encodeFrame(message));
  }

  /** The next frame from the worker, or a rejection on timeout or close. */
  next(timeoutMs: number): Promise<unknown> {
    if (this.inbox.length > 0) return Promise.resolve(this.inbox.shift());
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      waiter.timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new FrameTimeoutError(timeoutMs));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  request(message: unknown, timeoutMs: number): Promise<unknown> {
    try {
      this.send(message);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.next(timeoutMs);
  }

  close(): void {
    this.socket.end();
    this.socket.destroySoon();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let frames: unknown[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.socket.destroy();
      this.shut(new ConnectionClosedError(error instanceof Error ? error.message : 'undecodable frame'));
      return;
    }
    for (const frame of frames) {
      const waiter = this.waiters.shift();
      if (waiter) {
        clearTimeout(waiter.timer);
        waiter.resolve(frame);
      } else {
        this.inbox.push(frame);
      }
    }
  }

  private shut(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }
}
