import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { RestConfig } from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { DriverContext } from '../../../src/modules/connectors/connector-driver';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { restDriver } from '../../../src/modules/connectors/drivers/rest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EgressGuard } from '../../../src/modules/egress/egress.types';
import { GuardHarness, startGuard } from '../../support/egress-fixtures';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';

type Handler = (
  request: IncomingMessage,
  url: URL,
  body: string,
) => { status?: number; headers?: Record<string, string>; json?: unknown };

interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server;
let port: number;
let handler: Handler;
let connections = 0;
const seen: Recorded[] = [];
let dir: string;
let allowing: GuardHarness;
let denying: GuardHarness;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
      seen.push({ method: request.method ?? '', url, headers: request.headers, body });
      const answer = handler(request, url, body);
      response.writeHead(answer.status ?? 200, {
        'content-type': 'application/json',
        ...(answer.headers ?? {}),
      });
      response.end(answer.json === undefined ? '' : JSON.stringify(answer.json));
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), 'conn-rest-'));
  // The real egress guard: loopback is reachable only through an explicit rule for this port.
  allowing = await startGuard(join(dir, 'allow'), [`127.0.0.1:${port}`]);
  denying = await startGuard(join(dir, 'deny'), []);
});

afterAll(async () => {
  await allowing.close();
  await denying.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
});

function rest(config: Record<string, unknown>): RestConfig {
  return normalizeConfig({ type: 'rest' }, config).values as RestConfig;
}

function context(guard: EgressGuard = allowing.guard): DriverContext & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    orgId: 'org_1',
    egress: guard,
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: '/tmp',
    batchSize: 100,
    parseLimits: parseLimits(),
    warn: (m) => warnings.push(m),
    warnings,
  };
}

async function readAll(config: RestConfig, ctx = context()): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of restDriver.readRows(config, {}, ctx)) out.push(...batch);
  return out;
}

const base = (): string => `http://127.0.0.1:${port}`;

describe('REST driver against a loopback server', () => {
  describe('test', () => {
    it('probes base_url + health_path with the auth header rules', async () => {
      handler = () => ({ json: { ok: true } });
      const outcome = await restDriver.test(
        rest({ base_url: `${base()}/api/`, health_path: '/health', auth_type: 'bearer', token: 'tok' }),
        context(),
      );
      expect(outcome.message).toContain('HTTP 200');
      expect(seen[0].url.pathname).toBe('/api/health');
      expect(seen[0].headers.authorization).toBe('Bearer tok');

      await restDriver.test(rest({ base_url: base(), auth_type: 'api_key', api_key: 'k1' }), context());
      expect(seen[1].headers['x-api-key']).toBe('k1');
      await restDriver.test(
        rest({ base_url: base(), auth_type: 'api_key', api_key: 'k2', api_key_header: 'X-Token' }),
        context(),
      );
      expect(seen[2].headers['x-token']).toBe('k2');
      await restDriver.test(
        rest({ base_url: base(), auth_type: 'basic', username: 'u', password: 'p' }),
        context(),
      );
      expect(seen[3].headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
      await restDriver.test(rest({ base_url: base() }), context());
      expect(seen[4].headers.authorization).toBeUndefined();
    });

    it('says base_url is required', async () => {
      const error = await connectorFailure(restDriver.test(rest({}), context()));
      expect(error.errorType).toBe('invalid_config');
      expect(error.message).toBe('base_url is required.');
      expect(seen).toHaveLength(0);
    });

    it('maps non-2xx statuses and names the status in the message', async () => {
      for (const [status, type] of [
        [401, 'auth_failed'],
        [403, 'auth_failed'],
        [404, 'not_found'],
        [500, 'remote_error'],
      ] as const) {
        handler = () => ({ status, json: { error: 'x' } });
        const error = await connectorFailure(restDriver.test(rest({ base_url: base() }), context()));
        expect(error.errorType).toBe(type);
        expect(error.message).toContain(`HTTP ${status}`);
      }
    });

    it('reports egress_blocked without contacting the destination', async () => {
      handler = () => ({ json: {} });
      const before = connections;
      const error = await connectorFailure(
        restDriver.test(rest({ base_url: base() }), context(denying.guard)),
      );
      expect(error.errorType).toBe('egress_blocked');
      expect(error.recoverable).toBe(false);
      expect(seen).toHaveLength(0);
      expect(connections).toBe(before);
      expect((await connectorFailure(readAll(rest({ url: base() }), context(denying.guard)))).errorType).toBe(
        'egress_blocked',
      );
      expect(connections).toBe(before);
    });

    it('the same destination on another port is blocked by the port rule', async () => {
      const error = await connectorFailure(
        restDriver.test(rest({ base_url: `http://127.0.0.1:${port === 65535 ? 1 : port + 1}` }), context()),
      );
      expect(error.errorType).toBe('egress_blocked');
    });

    it('reports unreachable for a closed port', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const guard = await startGuard(join(dir, 'closed'), [`127.0.0.1:${closedPort}`]);
      const error = await connectorFailure(
        restDriver.test(rest({ base_url: `http://127.0.0.1:${closedPort}` }), context(guard.guard)),
      );
      await guard.close();
      expect(error.errorType).toBe('unreachable');
    });
  });

  describe('fetch', () => {
    it('sends headers verbatim, params, a POST body, and flattens records under data_path', async () => {
      handler = () => ({
        json: {
          results: {
            items: [
              { id: 1, owner: { name: 'a' } },
              { id: 2, owner: { name: 'b' } },
            ],
          },
        },
      });
      const rows = await readAll(
        rest({
          base_url: base(),
          url: `${base()}/search`,
          method: 'POST',
          headers: { Authorization: 'Bearer mirrored', 'X-Custom': 'v' },
          params: { q: 'x', n: 5 },
          body: { filter: { a: 1 } },
          data_path: 'results.items',
          auth_type: 'bearer',
          api_key: 'not-sent-by-fetch',
        }),
      );
      expect(rows).toEqual([
        { id: 1, 'owner.name': 'a' },
        { id: 2, 'owner.name': 'b' },
      ]);
      expect(seen[0].method).toBe('POST');
      expect(seen[0].headers.authorization).toBe('Bearer mirrored');
      expect(seen[0].headers['x-custom']).toBe('v');
      expect(seen[0].url.searchParams.get('q')).toBe('x');
      expect(seen[0].url.searchParams.get('n')).toBe('5');
      expect(JSON.parse(seen[0].body)).toEqual({ filter: { a: 1 } });
    });

    it('does not derive fetch headers from auth_type', async () => {
      handler = () => ({ json: [{ a: 1 }] });
      await readAll(rest({ url: base(), auth_type: 'bearer', api_key: 'secret' }));
      expect(seen[0].headers.authorization).toBeUndefined();
    });

    it('a data_path that reaches no array is invalid_payload', async () => {
      handler = () => ({ json: { results: { count: 1 } } });
      expect(
        (await connectorFailure(readAll(rest({ url: base(), data_path: 'results.items' })))).errorType,
      ).toBe('invalid_payload');
    });

    it('a non-JSON body is invalid_payload', async () => {
      handler = () => ({ headers: { 'content-type': 'text/html' }, json: undefined });
      expect((await connectorFailure(readAll(rest({ url: base() })))).errorType).toBe('invalid_payload');
    });
  });

  describe('page_number pagination', () => {
    const pages: Record<string, unknown[]> = { '1': [{ id: 1 }, { id: 2 }], '2': [{ id: 3 }], '3': [] };

    it('increments the page parameter until an empty page', async () => {
      handler = (_r, url) => ({ json: { data: pages[url.searchParams.get('p') ?? ''] ?? [] } });
      const rows = await readAll(
        rest({
          url: base(),
          pagination: {
            mode: 'page_number',
            max_pages: 5,
            page_param: 'p',
            page_size_param: 'size',
            page_size: 2,
          },
        }),
      );
      expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
      expect(seen.map((s) => s.url.searchParams.get('p'))).toEqual(['1', '2', '3']);
      expect(seen.every((s) => s.url.searchParams.get('size') === '2')).toBe(true);
    });

    it('starts at start_page', async () => {
      handler = (_r, url) => ({ json: { data: url.searchParams.get('page') === '0' ? [{ id: 0 }] : [] } });
      expect(
        (
          await readAll(
            rest({ url: base(), pagination: { mode: 'page_number', max_pages: 3, start_page: 0 } }),
          )
        ).map((r) => r.id),
      ).toEqual([0]);
    });

    it('stops when has_more_path is false', async () => {
      handler = (_r, url) => ({
        json: {
          items: [{ page: url.searchParams.get('page') }],
          meta: { more: url.searchParams.get('page') !== '2' },
        },
      });
      const rows = await readAll(
        rest({ url: base(), pagination: { mode: 'page_number', max_pages: 10, has_more_path: 'meta.more' } }),
      );
      expect(rows).toEqual([{ page: '1' }, { page: '2' }]);
    });

    it('follows the Link rel and stops when it is absent', async () => {
      handler = (_r, url) => {
        const page = url.searchParams.get('page') ?? '';
        const next =
          page === '1' ? `<${base()}/?page=2>; rel="next", <${base()}/?page=1>; rel="first"` : undefined;
        return { headers: next ? { link: next } : undefined, json: [{ page }] };
      };
      const rows = await readAll(
        rest({ url: base(), pagination: { mode: 'page_number', max_pages: 10, next_link_rel: 'next' } }),
      );
      expect(rows).toEqual([{ page: '1' }, { page: '2' }]);
    });

    it('reaching max_pages without termination is a pagination error, never a truncation', async () => {
      handler = () => ({ json: [{ x: 1 }] });
      const ctx = context();
      const got: unknown[] = [];
      const error = await connectorFailure(
        (async () => {
          for await (const batch of restDriver.readRows(
            rest({ url: base(), pagination: { mode: 'page_number', max_pages: 3 } }),
            {},
            ctx,
          ))
            got.push(...batch);
        })(),
      );
      expect(error.errorType).toBe('pagination_error');
      expect(error.message).toContain('max_pages (3)');
      expect(seen).toHaveLength(3);
    });
  });

  describe('cursor_path pagination', () => {
    it('passes the cursor in cursor_param and stops on an empty cursor', async () => {
      handler = (_r, url) => {
        const cursor = url.searchParams.get('after');
        if (!cursor) return { json: { data: [{ id: 1 }], next: 'c2' } };
        if (cursor === 'c2') return { json: { data: [{ id: 2 }], next: 'c3' } };
        return { json: { data: [{ id: 3 }], next: null } };
      };
      const rows = await readAll(
        rest({
          url: base(),
          pagination: { mode: 'cursor_path', max_pages: 5, next_path: 'next', cursor_param: 'after' },
        }),
      );
      expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
      expect(seen.map((s) => s.url.searchParams.get('after'))).toEqual([null, 'c2', 'c3']);
    });

    it('follows a next URL when there is no cursor_param', async () => {
      handler = (_r, url) => ({
        json:
          url.pathname === '/two'
            ? { items: [{ id: 2 }], links: { next: '' } }
            : { items: [{ id: 1 }], links: { next: '/two' } },
      });
      const rows = await readAll(
        rest({ url: base(), pagination: { mode: 'cursor_path', max_pages: 5, next_path: 'links.next' } }),
      );
      expect(rows.map((r) => r.id)).toEqual([1, 2]);
    });

    it('a cursor seen before is a loop error', async () => {
      handler = () => ({ json: { data: [{ id: 1 }], next: 'same' } });
      const error = await connectorFailure(
        readAll(
          rest({
            url: base(),
            pagination: { mode: 'cursor_path', max_pages: 10, next_path: 'next', cursor_param: 'c' },
          }),
        ),
      );
      expect(error.errorType).toBe('pagination_error');
      expect(error.message).toContain('loop');
    });

    it('max_pages with a cursor still present is an error', async () => {
      let n = 0;
      handler = () => ({ json: { data: [{ id: n }], next: `c${++n}` } });
      const error = await connectorFailure(
        readAll(
          rest({
            url: base(),
            pagination: { mode: 'cursor_path', max_pages: 2, next_path: 'next', cursor_param: 'c' },
          }),
        ),
      );
      expect(error.errorType).toBe('pagination_error');
    });
  });

  it('browse returns a sample and inferred fields', async () => {
    handler = () => ({
      json: [
        { id: 1, name: 'a', score: 1.5, tags: [] },
        { id: 2, name: null, score: 2, tags: ['x'] },
      ],
    });
    const result = await restDriver.browse(rest({ base_url: base(), url: `${base()}/items` }), context());
    expect(result.items).toEqual([
      { name: 'id', kind: 'field', type: 'integer' },
      { name: 'name', kind: 'field', type: 'string' },
      { name: 'score', kind: 'field', type: 'number' },
      { name: 'tags', kind: 'field', type: 'array' },
    ]);
    expect((result.discovery.sample as unknown[]).length).toBe(2);
  });
});
