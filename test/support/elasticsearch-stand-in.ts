import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface StandInIndex {
  readonly mappings: Record<string, unknown>;
  readonly documents: readonly { readonly _id: string; readonly _source: Record<string, unknown> }[];
  /** What hits.total reports when it differs from the documents held (a huge index without its documents). */
  readonly reportedTotal?: number;
}

export interface ElasticsearchStandIn {
  readonly url: string;
  readonly port: number;
  /** `METHOD path` of every request, in order. */
  readonly requests: string[];
  /** The search_after of every _search, in order (undefined for the first page). */
  readonly searchAfters: unknown[];
  close(): Promise<void>;
}

/**
 * An HTTP server answering the Elasticsearch REST endpoints the driver calls (info, cluster health, _cat/indices,
 * _mapping, point in time, _search with search_after on _shard_doc) with the real response shapes and the
 * `X-Elastic-Product` header the official client insists on. Credentials: basic `elastic:secret` or ApiKey `key-1`.
 */
export async function startElasticsearchStandIn(
  indices: Readonly<Record<string, StandInIndex>>,
): Promise<ElasticsearchStandIn> {
  const requests: string[] = [];
  const searchAfters: unknown[] = [];
  const pits = new Map<string, string>();

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
    res.end(JSON.stringify(body));
  };
  const failure = (res: ServerResponse, status: number, type: string, reason: string): void =>
    send(res, status, { error: { root_cause: [{ type, reason }], type, reason }, status });

  const authorized = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization ?? '';
    return (
      header === `Basic ${Buffer.from('elastic:secret').toString('base64')}` || header === 'ApiKey key-1'
    );
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = url.pathname;
    requests.push(`${req.method} ${path}`);
    if (!authorized(req)) {
      res.setHeader('www-authenticate', 'Basic realm="security"');
      failure(res, 401, 'security_exception', 'unable to authenticate user [elastic]');
      return;
    }
    if (req.method === 'GET' && path === '/') {
      send(res, 200, {
        name: 'node-1',
        cluster_name: 'stand-in',
        version: { number: '8.15.0', build_flavor: 'default' },
        tagline: 'You Know, for Search',
      });
    } else if (req.method === 'GET' && path === '/_cluster/health') {
      send(res, 200, { cluster_name: 'stand-in', status: 'green', number_of_nodes: 1 });
    } else if (req.method === 'GET' && path === '/_cat/indices') {
      send(res, 200, [
        ...Object.entries(indices).map(([index, value]) => ({
          health: 'green',
          status: 'open',
          index,
          'docs.count': String(value.reportedTotal ?? value.documents.length),
        })),
        { health: 'green', status: 'open', index: '.security-7', 'docs.count': '3' },
      ]);
    } else if (req.method === 'GET' && /^\/[^/]+\/_mapping$/.test(path)) {
      send(
        res,
        200,
        Object.fromEntries(
          Object.entries(indices).map(([index, value]) => [index, { mappings: value.mappings }]),
        ),
      );
    } else if (req.method === 'POST' && /^\/[^/]+\/_pit$/.test(path)) {
      const index = decodeURIComponent(path.split('/')[1]);
      if (!(index in indices)) {
        failure(res, 404, 'index_not_found_exception', `no such index [${index}]`);
        return;
      }
      const id = `pit-${pits.size + 1}`;
      pits.set(id, index);
      send(res, 200, { id });
    } else if (req.method === 'POST' && path === '/_search') {
      const pit = body.pit as { id?: string } | undefined;
      const index = pits.get(pit?.id ?? '');
      if (index === undefined) {
        failure(res, 404, 'search_context_missing_exception', 'No search context found');
        return;
      }
      searchAfters.push(body.search_after);
      const held = indices[index];
      const start = Array.isArray(body.search_after) ? Number(body.search_after[0]) + 1 : 0;
      const size = Number(body.size ?? 10);
      const hits = held.documents.slice(start, start + size).map((doc, offset) => ({
        _index: index,
        _id: doc._id,
        _score: null,
        _source: doc._source,
        sort: [start + offset],
      }));
      send(res, 200, {
        pit_id: pit?.id,
        took: 1,
        timed_out: false,
        hits: {
          total: { value: held.reportedTotal ?? held.documents.length, relation: 'eq' },
          max_score: null,
          hits,
        },
      });
    } else if (req.method === 'DELETE' && path === '/_pit') {
      send(res, 200, { succeeded: pits.delete(String(body.id)), num_freed: 1 });
    } else {
      failure(res, 400, 'illegal_argument_exception', `no handler for ${req.method} ${path}`);
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      handle(req, res, text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    searchAfters,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
