import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface GitlabStandIn {
  readonly url: string;
  readonly port: number;
  /** `path?query` of every request, in order (the path still percent-encoded, as GitLab receives it). */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP server answering the GitLab v4 endpoints the gitlab_repo driver calls (project, paginated recursive tree,
 * raw file at a ref) for one project `acme/data` whose files differ per branch. Token `glpat-good`.
 */
export async function startGitlabStandIn(
  branches: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Promise<GitlabStandIn> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const raw = req.url ?? '/';
    requests.push(raw);
    const url = new URL(raw, 'http://stand-in');
    const rawPath = raw.split('?')[0];
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers['private-token'] !== 'glpat-good') return json(401, { message: '401 Unauthorized' });
    const prefix = '/projects/acme%2Fdata';
    if (rawPath === prefix) {
      return json(200, {
        id: 7,
        path_with_namespace: 'acme/data',
        default_branch: 'main',
        visibility: 'private',
      });
    }
    if (rawPath === `${prefix}/repository/tree`) {
      const files = branches[url.searchParams.get('ref') ?? ''];
      if (!files || url.searchParams.get('recursive') !== 'true')
        return json(404, { message: '404 Tree Not Found' });
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      const entries = Object.keys(files).map((path) => ({ path, type: 'blob', mode: '100644' }));
      return json(200, entries.slice((page - 1) * perPage, page * perPage));
    }
    const file = /^\/projects\/acme%2Fdata\/repository\/files\/([^/]+)\/raw$/.exec(rawPath);
    if (file) {
      const text = branches[url.searchParams.get('ref') ?? '']?.[decodeURIComponent(file[1])];
      if (text === undefined) return json(404, { message: '404 File Not Found' });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    json(404, { message: '404 Not Found' });
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
