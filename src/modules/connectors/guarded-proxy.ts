import { createServer, IncomingMessage, request as httpRequest, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect as netConnect, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { EgressContext, EgressGuard } from '../egress/egress.types';

export interface GuardedProxy {
  readonly host: string;
  readonly port: number;
  readonly refusal: Error | undefined;
  close(): Promise<void>;
}

/**
 * A loopback CONNECT proxy for SDKs that take proxy settings but no socket or agent (snowflake-sdk): every tunnel
 * target is checked by the egress guard and connected to the checked address; TLS stays end to end. Only this
 * process can reach it (127.0.0.1, ephemeral port, closed after use) and it serves nothing but CONNECT.
 */
export async function startGuardedProxy(guard: EgressGuard, context: EgressContext): Promise<GuardedProxy> {
  let refusal: Error | undefined;
  const sockets = new Set<Duplex>();
  // Plain-http requests arrive with an absolute URI (or a path and a Host header); they are checked and forwarded.
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(request.url ?? '', `http://${request.headers.host ?? 'invalid.invalid'}`);
    } catch {
      response.writeHead(400).end();
      return;
    }
    if (target.protocol !== 'http:') {
      response.writeHead(405).end();
      return;
    }
    const port = Number(target.port || 80);
    guard.checkDestination(target.hostname, port, context).then(
      (destination) => {
        const upstream = httpRequest(
          {
            host: destination.address,
            port,
            method: request.method,
            path: `${target.pathname}${target.search}`,
            headers: { ...request.headers, host: target.host },
          },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        upstream.on('error', () => response.destroy());
        request.pipe(upstream);
      },
      (error: Error) => {
        refusal = error;
        response.writeHead(403).end();
      },
    );
  });
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, host, port] = match;
    guard.checkDestination(host, Number(port), context).then(
      (destination) => {
        const upstream: Socket = netConnect({ host: destination.address, port: Number(port) }, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      (error: Error) => {
        refusal = error;
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    get refusal() {
      return refusal;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
