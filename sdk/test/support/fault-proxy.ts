import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request: pass it on, drop the connection before or after the daemon handled it,
 * cut the daemon's answer half-way, or answer a status of its own.
 */
export type Fault =
  | { kind: 'forward' }
  | { kind: 'drop_before' }
  | { kind: 'drop_after' }
  | { kind: 'cut_answer' }
  | { kind: 'hang' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string };

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** Date.now() when the request had arrived whole. */
  readonly at: number;
}

/** A loopback proxy in front of the real daemon that injects connection faults; it never invents a resource. */
export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  private faults: Fault[] = [];
  private server: Server | undefined;
  private target: URL;

  constructor(target: string) {
    this.target = new URL(target);
  }

  get baseURL(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** The next requests meet these faults in order; after them, requests are forwarded. */
  plan(...faults: Fault[]): void {
    this.faults = faults;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((done) => this.server?.listen(0, '127.0.0.1', done));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((done) => this.server?.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    this.seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, at: Date.now() });
    const fault = this.faults.shift() ?? { kind: 'forward' };
    switch (fault.kind) {
      case 'hang':
        return;
      case 'drop_before':
        req.socket.destroy();
        return;
      case 'answer':
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        res.end(fault.body ?? '');
        return;
      case 'forward':
      case 'drop_after':
      case 'cut_answer': {
        const answer = await this.forward(req, body);
        if (fault.kind === 'drop_after') {
          req.socket.destroy();
          return;
        }
        const headers = { ...answer.headers };
        delete headers['transfer-encoding'];
        delete headers['connection'];
        if (fault.kind === 'cut_answer') {
          res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
          res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)));
          setTimeout(() => req.socket.destroy(), 20);
          return;
        }
        res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
        res.end(answer.body);
        return;
      }
    }
  }

  private forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    return new Promise((resolveAnswer, reject) => {
      const upstream = httpRequest(
        {
          host: this.target.hostname,
          port: this.target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: this.target.host },
        },
        (answer) => {
          void readAll(answer).then(
            (answerBody) =>
              resolveAnswer({ status: answer.statusCode ?? 502, headers: answer.headers, body: answerBody }),
            reject,
          );
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
