import { connect, Socket } from 'node:net';
import { encodeFrame, FrameDecoder } from './framing';

/** The socket closed (end of stream, socket error, undecodable frame); every waiting reply is refused with it. */
export class FramedSocketClosedError extends Error {
  constructor(readonly reason: string) {
    super(`the connection closed: ${reason}`);
    this.name = 'FramedSocketClosedError';
  }
}

export class FrameTimeoutError extends Error {
  constructor(readonly waitedMs: number) {
    super(`no frame within ${waitedMs} ms`);
    this.name = 'FrameTimeoutError';
  }
}

interface Waiter {
  resolve(frame: unknown): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

// The helpers answer each connection's requests in order, so replies go to waiters first in, first out. A timeout
// rejects only its waiter.
export class FramedSocket {
  private readonly decoder = new FrameDecoder();
  private readonly inbox: unknown[] = [];
  private readonly waiters: Waiter[] = [];
  private closedWith: FramedSocketClosedError | undefined;
  private readonly closeListeners: ((error: FramedSocketClosedError) => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.shut(new FramedSocketClosedError(error.message)));
    socket.on('close', () => this.shut(new FramedSocketClosedError('end of stream')));
  }

  static connect(path: string): Promise<FramedSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ path });
      const onError = (error: Error): void => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        resolve(new FramedSocket(socket));
      });
    });
  }

  get isOpen(): boolean {
    return this.closedWith === undefined;
  }

  /** Open, with no reply awaited and no frame unread: safe to hand to the next caller. */
  get isIdle(): boolean {
    return this.isOpen && this.waiters.length === 0 && this.inbox.length === 0;
  }

  onClose(listener: (error: FramedSocketClosedError) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  send(message: unknown): void {
    if (this.closedWith) throw this.closedWith;
    this.socket.write(encodeFrame(message));
  }

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
      this.shut(new FramedSocketClosedError(error instanceof Error ? error.message : 'undecodable frame'));
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

  private shut(error: FramedSocketClosedError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }
}
