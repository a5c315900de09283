import { AddressInfo, connect, createServer, Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections the proxy has accepted since it started (each one a new connection to the target). */
  readonly accepted: number;
  /**
   * A database restart as the client sees it: every open connection is reset and the port stops listening, so new
   * connections are refused (ECONNREFUSED) until `resume()`.
   */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `target`, so a test can take a server away from one daemon without touching the server
 * other test runs share.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<readonly [Socket, Socket]>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    const pair = [client, upstream] as const;
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;

  const cut = async (): Promise<void> => {
    const closed = listening
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    listening = false;
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
    await closed;
  };
  return {
    port,
    get accepted() {
      return accepted;
    },
    cut,
    async resume() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: cut,
  };
}
