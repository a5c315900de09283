import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface BitbucketStandIn {
  readonly url: string;
  readonly port: number;
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP server answering the Bitbucket Cloud 2.0 endpoints the bitbucket_repo driver calls (repository,
 * paginated `src` listing with `next` links, raw file at a ref) for `acme/data`. Token `bb-good`. `foreignNext`
 * makes the listing's next link point at another server.
 */
export async function startBitbucketStandIn(
  branches: Readonly<Record<string, Readonly<Record<string, string>>>>,
  options: { foreignNext?: string } = {},
): Promise<BitbucketStandIn> {
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const raw = req.url ?? '/';
    requests.push(raw);
    const url = new URL(raw, 'http://stand-in');
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== 'Bearer bb-good') return json(401, { type: 'error' });
    const prefix = '/repositories/acme/data';
    if (url.pathname === prefix) {
      return json(200, { full_name: 'acme/data', is_private: true, mainbranch: { name: 'main' } });
    }
    const listing = /^\/repositories\/acme\/data\/src\/([^/]+)\/$/.exec(url.pathname);
    if (listing) {
      const files = branches[decodeURIComponent(listing[1])];
      if (!files) return json(404, { type: 'error' });
      const pagelen = Number(url.searchParams.get('pagelen') ?? 10);
      const page = Number(url.searchParams.get('page') ?? 1);
      const values = Object.entries(files).map(([path, text]) => ({
        path,
        type: 'commit_file',
        size: Buffer.byteLength(text),
      }));
      const more = page * pagelen < values.length;
      const nextUrl = new URL(raw, base);
      nextUrl.searchParams.set('page', String(page + 1));
      return json(200, {
        pagelen,
        page,
        values: values.slice((page - 1) * pagelen, page * pagelen),
        ...(options.foreignNext ? { next: options.foreignNext } : more ? { next: nextUrl.toString() } : {}),
      });
    }
    const file = /^\/repositories\/acme\/data\/src\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const path = file[2].split('/').map(decodeURIComponent).join('/');
      const text = branches[decodeURIComponent(file[1])]?.[path];
      if (text === undefined) return json(404, { type: 'error' });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    json(404, { type: 'error' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
