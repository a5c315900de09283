import { createVerify, generateKeyPairSync } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigqueryConfig, GcsConfig } from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { ConnectorDriver, DriverContext } from '../../../src/modules/connectors/connector-driver';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { bigqueryDriver } from '../../../src/modules/connectors/drivers/bigquery';
import { storedRecord } from '../../support/stored-cell';
import { gcsDriver } from '../../../src/modules/connectors/drivers/gcs';
import { GuardHarness, startGuard } from '../../support/egress-fixtures';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';

// No Google endpoint is reachable here: a loopback stand-in plays the OAuth token endpoint (verifying the JWT
// signature google-auth-library makes), the GCS JSON API and the BigQuery REST API the SDKs call.

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const TOKEN = 'ya29.test-token';
let dir: string;
let server: Server;
let port: number;
let allowing: GuardHarness;
let denying: GuardHarness;
const seen: string[] = [];
/** The Authorization header of every BigQuery request. */
const bearers: string[] = [];
/** What the BigQuery stand-in was asked: a POST's JSON body, a GET's query parameters. */
const bigqueryRequests: { body?: Record<string, unknown>; query?: Record<string, string> }[] = [];

function serviceAccount(): Record<string, string> {
  return {
    type: 'service_account',
    project_id: 'proj',
    client_email: 'reader@proj.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    token_uri: `http://127.0.0.1:${port}/token`,
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function handle(request: IncomingMessage, response: ServerResponse, body: string): void {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  seen.push(`${request.method} ${url.pathname}`);
  if (url.pathname === '/token-empty') {
    json(response, 200, { token_type: 'Bearer' });
    return;
  }
  if (url.pathname.startsWith('/bigquery/')) bearers.push(request.headers.authorization ?? '(none)');
  if (url.pathname === '/token') {
    const assertion = new URLSearchParams(body).get('assertion') ?? '';
    const [header, claims, signature] = assertion.split('.');
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(publicKey, signature, 'base64url');
    json(
      response,
      valid ? 200 : 400,
      valid
        ? { access_token: TOKEN, expires_in: 3600 }
        : { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' },
    );
    return;
  }
  if (request.headers.authorization !== `Bearer ${TOKEN}`) {
    json(response, 401, { error: { message: 'Request had invalid authentication credentials.' } });
    return;
  }
  if (
    url.pathname === '/storage/v1/b/data/o/exports%2Fpeople.csv' ||
    url.pathname === '/storage/v1/b/data/o/exports/people.csv'
  ) {
    response.writeHead(200, { 'content-type': 'text/csv' });
    response.end('id,name\n1,Ada\n2,Alan\n');
    return;
  }
  if (url.pathname === '/storage/v1/b/data/o') {
    json(response, 200, { items: [{ name: 'exports/people.csv', size: '22' }] });
    return;
  }
  if (url.pathname.startsWith('/storage/')) {
    json(response, 404, { error: { message: 'No such object.' } });
    return;
  }
  if (url.pathname === '/bigquery/v2/projects/proj/datasets') {
    json(response, 200, { datasets: [{ datasetReference: { datasetId: 'sales' } }] });
    return;
  }
  if (url.pathname === '/bigquery/v2/projects/proj/queries' && request.method === 'POST') {
    bigqueryRequests.push({ body: JSON.parse(body) as Record<string, unknown> });
    if (body.includes('sales.running')) {
      json(response, 200, { jobComplete: false, jobReference: { jobId: 'job2', location: 'EU' } });
      return;
    }
    json(response, 200, {
      jobComplete: true,
      jobReference: { jobId: 'job1', location: 'EU' },
      schema: {
        fields: [
          { name: 'id', type: 'INTEGER' },
          { name: 'amount', type: 'FLOAT' },
          { name: 'ok', type: 'BOOLEAN' },
        ],
      },
      rows: [{ f: [{ v: '9007199254740993' }, { v: '1.5' }, { v: 'true' }] }],
      pageToken: 'p2',
    });
    return;
  }
  if (url.pathname === '/bigquery/v2/projects/proj/queries/job2') {
    bigqueryRequests.push({ query: Object.fromEntries(url.searchParams) });
    json(response, 200, {
      jobComplete: true,
      jobReference: { jobId: 'job2', location: 'EU' },
      schema: {
        fields: [
          { name: 'code', type: 'STRING' },
          { name: 'at', type: 'TIMESTAMP' },
          { name: 'day', type: 'DATE' },
        ],
      },
      rows: [{ f: [{ v: '00123' }, { v: '-1' }, { v: '2026-11-02' }] }],
    });
    return;
  }
  if (
    url.pathname === '/bigquery/v2/projects/proj/queries/job1' &&
    url.searchParams.get('pageToken') === 'p2'
  ) {
    bigqueryRequests.push({ query: Object.fromEntries(url.searchParams) });
    json(response, 200, {
      jobComplete: true,
      schema: {
        fields: [
          { name: 'id', type: 'INTEGER' },
          { name: 'amount', type: 'FLOAT' },
          { name: 'ok', type: 'BOOLEAN' },
        ],
      },
      rows: [{ f: [{ v: '2' }, { v: null }, { v: 'false' }] }],
    });
    return;
  }
  json(response, 404, { error: { message: `Not found: ${url.pathname}` } });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conn-google-'));
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (c: Buffer) => (body += c.toString()));
    request.on('end', () => handle(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  writeFileSync(join(dir, 'sa.json'), JSON.stringify(serviceAccount()));
  allowing = await startGuard(join(dir, 'allow'), [`127.0.0.1:${port}`]);
  denying = await startGuard(join(dir, 'deny'), []);
});

afterAll(async () => {
  await allowing.close();
  await denying.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function context(guard: GuardHarness): DriverContext {
  return {
    orgId: 'org_1',
    egress: guard.guard,
    imports: importAreaFor(dir, 'org_1', true, []),
    scratchDir: join(dir, 'scratch'),
    batchSize: 10,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

async function readAll<C>(
  driver: ConnectorDriver<C>,
  config: C,
  ctx: DriverContext,
  selection = {},
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of driver.readRows(config, selection, ctx)) out.push(...batch);
  return out;
}

describe('gcs (stand-in)', () => {
  const config = (raw: Record<string, unknown>): GcsConfig =>
    normalizeConfig(
      { type: 'gcs' },
      { bucket: 'data', blob: 'exports/people.csv', endpoint_url: `http://127.0.0.1:${port}`, ...raw },
    ).values as GcsConfig;

  it('signs a JWT grant, downloads and parses the object (credentials as a file in the import dir)', async () => {
    expect((await gcsDriver.test(config({ credentials: 'sa.json' }), context(allowing))).message).toContain(
      'parsed 2 csv record(s)',
    );
    expect(
      await readAll(gcsDriver, config({ service_account_json: serviceAccount() }), context(allowing)),
    ).toEqual([
      { id: '1', name: 'Ada' },
      { id: '2', name: 'Alan' },
    ]);
    expect(seen).toContain('POST /token');
  });

  it('a missing object is not_found; a bad key is auth_failed', async () => {
    expect(
      (
        await connectorFailure(
          gcsDriver.test(config({ credentials: 'sa.json', blob: 'x.csv' }), context(allowing)),
        )
      ).errorType,
    ).toBe('not_found');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const wrong = { ...serviceAccount(), private_key: other };
    expect(
      (
        await connectorFailure(
          gcsDriver.test(config({ credentials: JSON.stringify(wrong) }), context(allowing)),
        )
      ).errorType,
    ).toBe('auth_failed');
  });

  it('credentials outside the import dir are path_not_allowed; none at all is invalid_config', async () => {
    expect(
      (await connectorFailure(gcsDriver.test(config({ credentials: '/etc/passwd' }), context(allowing))))
        .errorType,
    ).toBe('path_not_allowed');
    expect((await connectorFailure(gcsDriver.test(config({}), context(allowing)))).errorType).toBe(
      'invalid_config',
    );
  });

  it('ambient credentials go to the metadata address, which the policy blocks', async () => {
    expect(
      (await connectorFailure(gcsDriver.test(config({ ambient_credentials: true }), context(allowing))))
        .errorType,
    ).toBe('egress_blocked');
  });

  it('a blocked endpoint is egress_blocked and never contacted', async () => {
    const before = seen.length;
    expect(
      (await connectorFailure(gcsDriver.test(config({ credentials: 'sa.json' }), context(denying))))
        .errorType,
    ).toBe('egress_blocked');
    expect(seen.length).toBe(before);
  });
});

describe('bigquery (stand-in)', () => {
  const config = (raw: Record<string, unknown> = {}): BigqueryConfig =>
    normalizeConfig(
      { type: 'bigquery' },
      { service_account_json: serviceAccount(), endpoint_url: `http://127.0.0.1:${port}`, ...raw },
    ).values as BigqueryConfig;

  it('tests with the project of the service account', async () => {
    expect((await bigqueryDriver.test(config(), context(allowing))).message).toBe(
      'Connected to BigQuery project proj: 1 dataset(s) visible.',
    );
  });

  it('is auth_failed, not Connected, when the token endpoint answers without a token; sends no empty bearer', async () => {
    const account = { ...serviceAccount(), token_uri: `http://127.0.0.1:${port}/token-empty` };
    bearers.length = 0;
    const error = await connectorFailure(
      bigqueryDriver.test(config({ service_account_json: account }), context(allowing)),
    );
    expect(error).toMatchObject({
      errorType: 'auth_failed',
      message: expect.stringContaining('without an access token') as unknown,
    });
    expect(bearers).toEqual([]);
  });

  it('pages query results, keeping INT64 exact', async () => {
    expect(
      await readAll(bigqueryDriver, config(), context(allowing), { query: 'SELECT * FROM sales.orders' }),
    ).toEqual([
      { id: '9007199254740993', amount: 1.5, ok: true },
      { id: 2, amount: null, ok: false },
    ]);
    expect(bigqueryRequests.at(-1)?.query).toEqual(expect.objectContaining({ pageToken: 'p2' }));
  });

  it('asks for exact timestamps, waits for a running query, and types cells by the schema', async () => {
    bigqueryRequests.length = 0;
    const rows = await readAll(bigqueryDriver, config(), context(allowing), {
      query: 'SELECT * FROM sales.running',
    });
    expect(rows.map(storedRecord)).toEqual([
      {
        code: ['string', '00123'],
        at: ['timestamp', '1969-12-31T23:59:59.999999Z'],
        day: ['date', '2026-11-02'],
      },
    ]);
    expect(bigqueryRequests).toEqual([
      {
        body: expect.objectContaining({
          query: 'SELECT * FROM sales.running',
          useLegacySql: false,
          formatOptions: { useInt64Timestamp: true },
        }) as unknown,
      },
      {
        query: expect.objectContaining({
          location: 'EU',
          'formatOptions.useInt64Timestamp': 'true',
        }) as unknown,
      },
    ]);
    expect(bigqueryRequests[1].query).not.toHaveProperty('pageToken');
  });

  it('refuses writes before any request', async () => {
    const before = seen.length;
    expect(
      (
        await connectorFailure(
          readAll(bigqueryDriver, config(), context(allowing), {
            query: 'DELETE FROM sales.orders WHERE true',
          }),
        )
      ).errorType,
    ).toBe('invalid_config');
    expect(seen.length).toBe(before);
  });

  it('a blocked endpoint is egress_blocked', async () => {
    expect((await connectorFailure(bigqueryDriver.test(config(), context(denying)))).errorType).toBe(
      'egress_blocked',
    );
  });
});

describe('outbound sockets of the Google SDKs', () => {
  interface Opened {
    socket: Socket;
    remote?: string;
    port?: number;
    localPort?: number;
  }
  const opened: Opened[] = [];
  /** Client ports of connections accepted by a server of this process other than the stand-in (the SDK proxy). */
  const acceptedByOwnProxy = new Set<number>();
  const onClient = (message: unknown): void => {
    const entry: Opened = { socket: (message as { socket: Socket }).socket };
    opened.push(entry);
    entry.socket.once('connect', () => {
      entry.remote = entry.socket.remoteAddress;
      entry.port = entry.socket.remotePort;
      entry.localPort = entry.socket.localPort;
    });
  };
  const onServer = (message: unknown): void => {
    const socket = (message as { socket: Socket & { server?: unknown } }).socket;
    if (socket.server !== server && socket.remotePort !== undefined)
      acceptedByOwnProxy.add(socket.remotePort);
  };

  const allowedConnectorDecisions = async (): Promise<number> =>
    (await allowing.counter.get()).values.find(
      (v) => v.labels.purpose === 'connector' && v.labels.decision === 'allowed',
    )?.value ?? 0;

  beforeAll(() => {
    diagnostics.subscribe('net.client.socket', onClient);
    diagnostics.subscribe('net.server.socket', onServer);
  });

  afterAll(() => {
    diagnostics.unsubscribe('net.client.socket', onClient);
    diagnostics.unsubscribe('net.server.socket', onServer);
  });

  it('open sockets only to addresses the guard pinned, or to their own loopback proxy', async () => {
    const gcs = normalizeConfig(
      { type: 'gcs' },
      { bucket: 'data', blob: 'exports/people.csv', endpoint_url: `http://127.0.0.1:${port}` },
    ).values as GcsConfig;
    const bigquery = normalizeConfig(
      { type: 'bigquery' },
      { service_account_json: serviceAccount(), endpoint_url: `http://127.0.0.1:${port}` },
    ).values as BigqueryConfig;
    const before = seen.length;
    const allowedBefore = await allowedConnectorDecisions();
    expect(await readAll(gcsDriver, { ...gcs, credentials: 'sa.json' }, context(allowing))).toHaveLength(2);
    expect(
      await readAll(bigqueryDriver, bigquery, context(allowing), { query: 'SELECT * FROM sales.orders' }),
    ).toHaveLength(2);
    expect(
      (await connectorFailure(gcsDriver.test({ ...gcs, ambient_credentials: true }, context(allowing))))
        .errorType,
    ).toBe('egress_blocked');
    expect(seen.slice(before)).toEqual([
      'POST /token',
      'GET /storage/v1/b/data/o/exports%2Fpeople.csv',
      'POST /token',
      'POST /bigquery/v2/projects/proj/queries',
      'GET /bigquery/v2/projects/proj/queries/job1',
    ]);

    const outbound = opened.filter((o) => o.remote !== undefined);
    const viaProxy = outbound.filter((o) => acceptedByOwnProxy.has(o.localPort as number));
    const direct = outbound.filter((o) => !acceptedByOwnProxy.has(o.localPort as number));
    expect(viaProxy.length).toBeGreaterThanOrEqual(2);
    expect(viaProxy.every((o) => o.remote === '127.0.0.1' && o.port !== port)).toBe(true);
    // Every direct socket is one the guard checked: one allow decision each, none opened beside the guard.
    expect(direct.length).toBe((await allowedConnectorDecisions()) - allowedBefore);
    expect(direct.length).toBeGreaterThanOrEqual(4);
    expect(
      direct
        .filter((o) => !allowing.pinned.has(o.remote as string, o.port as number))
        .map((o) => `${o.remote}:${o.port}`),
    ).toEqual([]);
  });
});
