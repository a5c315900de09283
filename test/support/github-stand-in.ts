import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface GithubStandIn {
  readonly url: string;
  readonly port: number;
  /** `path?query` of every request, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP server answering the GitHub REST endpoints the github_repo driver calls (repository metadata, recursive
 * tree, raw contents at a ref) for one repository `acme/data` whose files differ per branch. Token `ghp_good`.
 */
export async function startGithubStandIn(
  branches: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Promise<GithubStandIn> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    requests.push(`${url.pathname}${url.search}`);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== 'Bearer ghp_good') {
      json(401, { message: 'Bad credentials', status: '401' });
      return;
    }
    const prefix = '/repos/acme/data';
    if (url.pathname === prefix) {
      json(200, { full_name: 'acme/data', default_branch: 'main', private: true });
      return;
    }
    const tree = /^\/repos\/acme\/data\/git\/trees\/([^/]+)$/.exec(url.pathname);
    if (tree && url.searchParams.get('recursive') === '1') {
      const files = branches[decodeURIComponent(tree[1])];
      if (!files) return json(404, { message: 'Not Found' });
      const folders = new Set(
        Object.keys(files).flatMap((path) =>
          path
            .split('/')
            .slice(0, -1)
            .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
        ),
      );
      return json(200, {
        sha: 'abc',
        truncated: false,
        tree: [
          ...[...folders].map((path) => ({ path, type: 'tree', mode: '040000' })),
          ...Object.entries(files).map(([path, text]) => ({
            path,
            type: 'blob',
            mode: '100644',
            size: Buffer.byteLength(text),
          })),
        ],
      });
    }
    const contents = /^\/repos\/acme\/data\/contents\/(.+)$/.exec(url.pathname);
    if (contents && req.headers.accept === 'application/vnd.github.raw+json') {
      const path = contents[1].split('/').map(decodeURIComponent).join('/');
      const text = branches[url.searchParams.get('ref') ?? 'main']?.[path];
      if (text === undefined) return json(404, { message: 'Not Found' });
      res.writeHead(200, { 'content-type': 'application/vnd.github.raw+json' });
      res.end(text);
      return;
    }
    json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
