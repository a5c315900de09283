import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface BitbucketStandIn {
  /** The server root: a Data Center / Server base_url. */
  readonly url: string;
  /** The Cloud 2.0 API root on the same server (`<url>/2.0`). */
  readonly cloudUrl: string;
  readonly port: number;
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP server answering the endpoints the bitbucket_repo driver calls, for both APIs:
 * - Bitbucket Cloud 2.0 under `/2.0` for `acme/data`: repository, paginated `src` listing with `next` links, raw
 *   file at a ref. `foreignNext` makes the listing's next link point at another server.
 * - Bitbucket Data Center / Server 1.0 under `/rest/api/1.0` for project `ACME`, repository `data`: repository,
 *   `default-branch` (404 with `legacyDefaultBranch`, which serves `branches/default` instead), `browse` of a folder
 *   paged with `start`/`limit` (at most 50 per page) and `isLastPage`/`nextPageStart`, and `raw` at `?at=`.
 * Token `bb-good` as Bearer, for both.
 */
export async function startBitbucketStandIn(
  branches: Readonly<Record<string, Readonly<Record<string, string>>>>,
  options: { foreignNext?: string; legacyDefaultBranch?: boolean } = {},
): Promise<BitbucketStandIn> {
  const requests: string[] = [];
  let base = '';
  const DATA_CENTER = '/rest/api/1.0/projects/ACME/repos/data';

  /** The Data Center answers; the files of a branch as folders and files, one level per browse call. */
  function dataCenter(url: URL, json: (status: number, body: unknown) => void, res: ServerResponse): void {
    const rest = url.pathname.slice(DATA_CENTER.length);
    const at = url.searchParams.get('at') ?? 'main';
    const files = branches[at];
    const error = (status: number) => json(status, { errors: [{ message: 'stand-in error' }] });
    if (rest === '') {
      return json(200, { slug: 'data', name: 'data', project: { key: 'ACME' }, public: false });
    }
    if (rest === '/default-branch') {
      if (options.legacyDefaultBranch) return error(404);
      return json(200, { id: 'refs/heads/main', displayId: 'main' });
    }
    if (rest === '/branches/default') return json(200, { id: 'refs/heads/main', displayId: 'main' });
    if (!files) return error(404);
    if (rest === '/browse' || rest.startsWith('/browse/')) {
      const folder = rest.slice('/browse/'.length).split('/').map(decodeURIComponent).join('/');
      const prefix = folder === '' ? '' : `${folder}/`;
      const children = new Map<string, { type: string; size?: number }>();
      for (const [path, text] of Object.entries(files)) {
        if (!path.startsWith(prefix)) continue;
        const [name, ...deeper] = path.slice(prefix.length).split('/');
        children.set(
          name,
          deeper.length > 0 ? { type: 'DIRECTORY' } : { type: 'FILE', size: Buffer.byteLength(text) },
        );
      }
      if (children.size === 0) return error(404);
      const start = Number(url.searchParams.get('start') ?? 0);
      const limit = Math.min(50, Number(url.searchParams.get('limit') ?? 25));
      const values = [...children].map(([name, child]) => ({
        path: { components: [name], name, toString: name },
        ...child,
      }));
      const page = values.slice(start, start + limit);
      const isLastPage = start + limit >= values.length;
      return json(200, {
        path: { toString: folder },
        revision: at,
        children: {
          size: page.length,
          limit,
          start,
          isLastPage,
          values: page,
          ...(isLastPage ? {} : { nextPageStart: start + limit }),
        },
      });
    }
    if (rest.startsWith('/raw/')) {
      const path = rest.slice('/raw/'.length).split('/').map(decodeURIComponent).join('/');
      const text = files[path];
      if (text === undefined) return error(404);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    error(404);
  }
  const server: Server = createServer((req, res) => {
    const raw = req.url ?? '/';
    requests.push(raw);
    const url = new URL(raw, 'http://stand-in');
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== 'Bearer bb-good') return json(401, { type: 'error' });
    if (url.pathname.startsWith(DATA_CENTER)) return dataCenter(url, json, res);
    const prefix = '/2.0/repositories/acme/data';
    if (url.pathname === prefix) {
      return json(200, { full_name: 'acme/data', is_private: true, mainbranch: { name: 'main' } });
    }
    const listing = /^\/2\.0\/repositories\/acme\/data\/src\/([^/]+)\/$/.exec(url.pathname);
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
    const file = /^\/2\.0\/repositories\/acme\/data\/src\/([^/]+)\/(.+)$/.exec(url.pathname);
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
    cloudUrl: `${base}/2.0`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
