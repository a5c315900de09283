/**
 * One `simulate --serve` worker for the benches, started and driven over its Unix socket as the daemon's pool drives
 * it: 4-byte length + JSON frames, one request at a time, replies in the order sent.
 */
import { spawn } from 'node:child_process';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../support/daemon';

export interface WorkerReply {
  readonly result?: { readonly compute_ms?: number } & Record<string, unknown>;
  readonly error?: unknown;
}

export interface BenchWorker {
  /** Sends one `run` frame with `request` and resolves with the worker's reply. */
  run(request: unknown): Promise<WorkerReply>;
  /** Closes the socket and kills the worker. */
  stop(): void;
}

async function connectWhenListening(socketPath: string): Promise<Socket> {
  for (let i = 0; i < 500; i++) {
    const socket = await new Promise<Socket | undefined>((resolveSocket) => {
      const attempt = connect({ path: socketPath });
      attempt.once('connect', () => resolveSocket(attempt));
      attempt.once('error', () => setTimeout(() => resolveSocket(undefined), 10));
    });
    if (socket) return socket;
  }
  throw new Error('the worker did not create its socket');
}

/** Starts a worker listening on `<dir>/worker.sock` and resolves once it has said hello. */
export async function startWorker(dir: string): Promise<BenchWorker> {
  const socketPath = join(dir, 'worker.sock');
  const worker = spawn(join(ROOT, 'engine_build', 'simulate'), ['--serve', socketPath], { stdio: 'ignore' });
  try {
    const socket = await connectWhenListening(socketPath);
    socket.setNoDelay(true);
    let buffer: Buffer = Buffer.alloc(0);
    const waiting: ((reply: WorkerReply) => void)[] = [];
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32BE(0)) {
        const length = buffer.readUInt32BE(0);
        const reply = JSON.parse(buffer.toString('utf8', 4, 4 + length)) as WorkerReply;
        buffer = buffer.subarray(4 + length);
        waiting.shift()?.(reply);
      }
    });
    await new Promise<WorkerReply>((hello) => waiting.push(hello));
    let sent = 0;
    return {
      run(request) {
        const payload = Buffer.from(
          JSON.stringify({ type: 'run', id: `r${sent++}`, deadline_ms: 60_000, request }),
        );
        const header = Buffer.alloc(4);
        header.writeUInt32BE(payload.length);
        const reply = new Promise<WorkerReply>((answered) => waiting.push(answered));
        socket.write(Buffer.concat([header, payload]));
        return reply;
      },
      stop() {
        socket.destroy();
        worker.kill('SIGKILL');
      },
    };
  } catch (error) {
    worker.kill('SIGKILL');
    throw error;
  }
}
