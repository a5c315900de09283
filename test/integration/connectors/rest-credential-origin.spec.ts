import { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestConfig } from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { DriverContext } from '../../../src/modules/connectors/connector-driver';
import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import { restDriver } from '../../../src/modules/connectors/drivers/rest';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { GuardHarness, Receiver, startGuard, startReceiver } from '../../support/egress-fixtures';
import { parseLimits } from '../../factories/parse-limits';

type Answer = { status?: number; headers?: Record<string, string>; json?: unknown };

let source: Receiver;
let other: Receiver;
let answer: (url: URL) => Answer;
let dir: string;
let harness: GuardHarness;

function reply(res: ServerResponse, result: Answer): void {
  res.writeHead(result.status ?? 200, { 'content-type': 'application/json', ...(result.headers ?? {}) });
  res.end(result.json === undefined ? '' : JSON.stringify(result.json));
}

beforeAll(async () => {
  source = await startReceiver((req: IncomingMessage, res: ServerResponse) =>
    reply(res, answer(new URL(req.url ?? '/', source.url))),
  );
  other = await startReceiver((_req, res) => reply(res, { json: { items: [{ id: 'other' }], next: null } }));
  dir = mkdtempSync(join(tmpdir(), 'rest-origin-'));
  // Both servers are allowed: the guard alone would let the credentials through.
  harness = await startGuard(dir, [`127.0.0.1:${source.port}`, `127.0.0.1:${other.port}`]);
});

afterAll(async () => {
  await harness.close();
  await source.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  source.requests.length = 0;
  other.requests.length = 0;
});

function rest(config: Record<string, unknown>): RestConfig {
  return normalizeConfig({ type: 'rest' }, config).values as RestConfig;
}

function context(): DriverContext {
  return {
    orgId: 'org_1',
    egress: harness.guard,
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: '/tmp',
    batchSize: 100,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

async function readAll(config: RestConfig): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of restDriver.readRows(config, {}, context())) out.push(...batch);
  return out;
}

/** The credentials the other server saw are asserted before the error, so a leak shows as what leaked. */
async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(other.requests.map((r) => [r.headers.authorization, r.headers['x-api-key']])).toEqual([]);
  expect(outcome).toBeInstanceOf(ConnectorError);
  return outcome as ConnectorError;
}

const secretHeaders = { Authorization: 'Bearer s3cret', 'X-API-Key': 'k3y' };

describe('REST credentials stay on the configured origin', () => {
  it('a next_path holding an absolute URL on another host stops paging; that host receives nothing', async () => {
    answer = () => ({ json: { items: [{ id: 1 }], next: `${other.url}/page2` } });
    const error = await failure(
      readAll(
        rest({
          url: `${source.url}/items`,
          headers: secretHeaders,
          pagination: { mode: 'cursor_path', max_pages: 5, next_path: 'next' },
        }),
      ),
    );
    expect(error.errorType).toBe('pagination_error');
    expect(error.message).toContain(`http://127.0.0.1:${other.port}`);
    expect(source.requests).toHaveLength(1);
    expect(source.requests[0].headers.authorization).toBe('Bearer s3cret');
    expect(other.requests).toHaveLength(0);
  });

  it('a protocol-relative next URL is another origin too', async () => {
    answer = () => ({ json: { items: [{ id: 1 }], next: `//127.0.0.1:${other.port}/page2` } });
    const error = await failure(
      readAll(
        rest({
          url: `${source.url}/items`,
          headers: secretHeaders,
          pagination: { mode: 'cursor_path', max_pages: 5, next_path: 'next' },
        }),
      ),
    );
    expect(error.errorType).toBe('pagination_error');
    expect(other.requests).toHaveLength(0);
  });

  it('a Link rel="next" to another host stops paging; that host receives nothing', async () => {
    answer = () => ({ headers: { link: `<${other.url}/?page=2>; rel="next"` }, json: [{ id: 1 }] });
    const error = await failure(
      readAll(
        rest({
          url: `${source.url}/items`,
          headers: secretHeaders,
          pagination: { mode: 'page_number', max_pages: 5, next_link_rel: 'next' },
        }),
      ),
    );
    expect(error.errorType).toBe('pagination_error');
    expect(error.message).toContain(`http://127.0.0.1:${other.port}`);
    expect(other.requests).toHaveLength(0);
  });

  it('next links on the same origin, absolute or relative, are still followed with the headers', async () => {
    answer = (url) =>
      url.pathname === '/items'
        ? { json: { items: [{ id: 1 }], next: `${source.url}/page2` } }
        : url.pathname === '/page2'
          ? { json: { items: [{ id: 2 }], next: '/page3' } }
          : { json: { items: [{ id: 3 }], next: null } };
    const rows = await readAll(
      rest({
        url: `${source.url}/items`,
        headers: secretHeaders,
        pagination: { mode: 'cursor_path', max_pages: 5, next_path: 'next' },
      }),
    );
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(source.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
      ['/items', 'k3y'],
      ['/page2', 'k3y'],
      ['/page3', 'k3y'],
    ]);
  });

  it('a fetch redirected to another host fails; that host receives nothing', async () => {
    answer = () => ({ status: 302, headers: { location: `${other.url}/moved` } });
    const error = await failure(readAll(rest({ url: `${source.url}/items`, headers: secretHeaders })));
    expect(error.errorType).toBe('remote_error');
    expect(error.message).toContain('HTTP 302');
    expect(error.message).toContain(`http://127.0.0.1:${other.port}`);
    expect(other.requests).toHaveLength(0);
  });

  it('a test redirected to another host fails; that host receives nothing', async () => {
    answer = () => ({ status: 307, headers: { location: `${other.url}/health` } });
    const error = await failure(
      restDriver.test(rest({ base_url: source.url, auth_type: 'api_key', api_key: 'k3y' }), context()),
    );
    expect(error.errorType).toBe('remote_error');
    expect(source.requests[0].headers['x-api-key']).toBe('k3y');
    expect(other.requests).toHaveLength(0);
  });

  it('a redirect on the same origin is followed with the headers', async () => {
    answer = (url) =>
      url.pathname === '/old'
        ? { status: 301, headers: { location: '/new' } }
        : { json: [{ id: url.pathname }] };
    const rows = await readAll(rest({ url: `${source.url}/old`, headers: secretHeaders }));
    expect(rows).toEqual([{ id: '/new' }]);
    expect(source.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/old', 'Bearer s3cret'],
      ['/new', 'Bearer s3cret'],
    ]);
  });

  it('a 303 after a POST continues as a GET without the body', async () => {
    answer = (url) =>
      url.pathname === '/search' ? { status: 303, headers: { location: '/results' } } : { json: [{ id: 1 }] };
    await readAll(rest({ url: `${source.url}/search`, method: 'POST', body: { q: 1 } }));
    expect(source.requests.map((r) => [r.method, r.url, r.body.length])).toEqual([
      ['POST', '/search', 7],
      ['GET', '/results', 0],
    ]);
    expect(source.requests[1].headers['content-type']).toBeUndefined();
  });
});
