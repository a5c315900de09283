import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A loopback webhook receiver that keeps every delivery, raw body included, and answers 200. */
export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private readonly server: Server;
  private waiters: Array<() => void> = [];

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200).end('ok');
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<void> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  /** Resolves with the first delivery whose X-Webhook-Event is `event`. */
  async next(event: string, timeoutMs = 60_000): Promise<Delivery> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.deliveries.find((d) => d.headers['x-webhook-event'] === event);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${event} delivery arrived`);
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
  }
}
