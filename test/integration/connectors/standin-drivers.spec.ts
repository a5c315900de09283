import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createTcpServer, Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClickhouseConfig,
  SnowflakeConfig,
  SqlServerConfig,
} from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { DriverContext } from '../../../src/modules/connectors/connector-driver';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { clickhouseDriver } from '../../../src/modules/connectors/drivers/clickhouse';
import { mssqlDriver } from '../../../src/modules/connectors/drivers/mssql';
import { snowflakeDriver } from '../../../src/modules/connectors/drivers/snowflake';
import { assertReadOnlyQuery } from '../../../src/modules/connectors/drivers/sql-common';
import { GuardHarness, startGuard } from '../../support/egress-fixtures';
import { parseLimits } from '../../factories/parse-limits';
import { SocketAudit } from '../../support/socket-audit';
import { storedRecord } from '../../support/stored-cell';
import { connectorFailure } from '../../support/connector-failure';

// No ClickHouse, SQL Server or Snowflake runs on this machine: these tests check config building, egress blocking
// and error mapping against loopback stand-ins that speak just enough of each protocol.

let dir: string;
let http: Server;
let httpPort: number;
/** The same HTTP stand-in on the IPv6 loopback address. */
let http6: Server;
let http6Port: number;
let tcp: TcpServer;
let tcpPort: number;
let tcpConnections = 0;
const requests: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let allowing: GuardHarness;
let denying: GuardHarness;

function respond(request: IncomingMessage, response: ServerResponse, body: string): void {
  requests.push({ url: request.url ?? '', headers: request.headers, body });
  const url = new URL(request.url ?? '/', 'http://stand-in');
  if (url.pathname.startsWith('/session/v1/login-request')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        success: false,
        code: '390100',
        message: 'Incorrect username or password was specified.',
        data: null,
      }),
    );
    return;
  }
  const auth = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
  if (auth === 'plain:http') {
    // Any HTTP server that answers 200 to whatever it is sent.
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('');
    return;
  }
  if (auth !== 'reader:right') {
    response.writeHead(516, { 'content-type': 'text/plain', 'x-clickhouse-exception-code': '516' });
    response.end(
      'Code: 516. DB::Exception: reader: Authentication failed: password is incorrect. (AUTHENTICATION_FAILED)',
    );
    return;
  }
  if (body.endsWith('FORMAT JSONCompactEachRowWithNamesAndTypes')) {
    response.writeHead(200, {
      'content-type': 'application/x-ndjson',
      'x-clickhouse-format': 'JSONCompactEachRowWithNamesAndTypes',
    });
    response.end(TYPED_ROWS.map((row) => `${JSON.stringify(row)}\n`).join(''));
    return;
  }
  response.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-clickhouse-format': 'JSONEachRow' });
  response.end(`${JSON.stringify({ version: '24.3.1.1', db: url.searchParams.get('database') })}\n`);
}

/** A typed result as ClickHouse writes it with the driver's settings: names, types, then rows. */
const TYPED_ROWS = [
  ['code', 'day', 'at', 'big', 'ratio'],
  ['String', 'Date', "DateTime64(3, 'Asia/Kolkata')", 'UInt64', 'Nullable(Float64)'],
  ['00123', '2026-11-02', '2026-11-01T19:30:00.250Z', '9007199254740993', 'nan'],
  ['', '2026-11-03', '2026-11-02T00:00:00.000Z', '42', null],
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conn-standin-'));
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    let body = '';
    request.on('data', (c: Buffer) => (body += c.toString()));
    request.on('end', () => respond(request, response, body));
  };
  http = createHttpServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as AddressInfo).port;
  http6 = createHttpServer(handler);
  await new Promise<void>((resolve) => http6.listen(0, '::1', resolve));
  http6Port = (http6.address() as AddressInfo).port;
  tcp = createTcpServer((socket) => {
    tcpConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as AddressInfo).port;
  allowing = await startGuard(join(dir, 'allow'), [
    `127.0.0.1:${httpPort}`,
    `127.0.0.1:${tcpPort}`,
    `[::1]:${http6Port}`,
  ]);
  denying = await startGuard(join(dir, 'deny'), []);
});

afterAll(async () => {
  await allowing.close();
  await denying.close();
  for (const server of [http, http6]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function context(guard: GuardHarness): DriverContext {
  return {
    orgId: 'org_1',
    egress: guard.guard,
    imports: importAreaFor(dir, 'org_1', true, []),
    scratchDir: dir,
    batchSize: 10,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

describe('clickhouse (stand-in)', () => {
  const config = (raw: Record<string, unknown>): ClickhouseConfig =>
    normalizeConfig({ type: 'clickhouse' }, raw).values as ClickhouseConfig;

  it('builds the endpoint from url and sends basic auth and the database', async () => {
    const outcome = await clickhouseDriver.test(
      config({ url: `http://127.0.0.1:${httpPort}`, user: 'reader', password: 'right', database: 'sales' }),
      context(allowing),
    );
    expect(outcome.message).toContain('ClickHouse 24.3.1.1');
    expect(outcome.details).toEqual({ server_version: '24.3.1.1', database: 'sales' });
    const last = requests[requests.length - 1];
    expect(new URL(last.url, 'http://x').searchParams.get('database')).toBe('sales');
  });

  it('reads rows typed by their columns, with wide numbers and nan quoted and DateTime as ISO text in UTC', async () => {
    const ctx = context(allowing);
    const read = clickhouseDriver.readRows(
      config({ url: `http://127.0.0.1:${httpPort}`, user: 'reader', password: 'right' }),
      { table: 'sales' },
      ctx,
    );
    const rows: Record<string, unknown>[] = [];
    for await (const batch of read) rows.push(...batch);
    expect(rows.map(storedRecord)).toEqual([
      {
        code: ['string', '00123'],
        day: ['date', '2026-11-02'],
        at: ['timestamp', '2026-11-01T19:30:00.250Z'],
        big: ['string/integer', '9007199254740993'],
        ratio: ['string', 'NaN'],
      },
      {
        code: ['string', ''],
        day: ['date', '2026-11-03'],
        at: ['timestamp', '2026-11-02T00:00:00.000Z'],
        big: ['integer', 42],
        ratio: ['null', null],
      },
    ]);
    const params = new URL(requests[requests.length - 1].url, 'http://x').searchParams;
    expect({
      readonly: params.get('readonly'),
      integers: params.get('output_format_json_quote_64bit_integers'),
      decimals: params.get('output_format_json_quote_decimals'),
      denormals: params.get('output_format_json_quote_denormals'),
      datetime: params.get('date_time_output_format'),
    }).toEqual({ readonly: '2', integers: '1', decimals: '1', denormals: '1', datetime: 'iso' });
  });

  it('does not say Connected to an HTTP server that is not ClickHouse', async () => {
    const error = await connectorFailure(
      clickhouseDriver.test(
        config({ host: '127.0.0.1', port: httpPort, user: 'plain', password: 'http' }),
        context(allowing),
      ),
    );
    expect(error).toMatchObject({
      errorType: 'remote_error',
      message: expect.stringContaining('did not answer as a ClickHouse server') as unknown,
    });
  });

  it('maps AUTHENTICATION_FAILED to auth_failed', async () => {
    const error = await connectorFailure(
      clickhouseDriver.test(
        config({ host: '127.0.0.1', port: httpPort, user: 'reader', password: 'wrong' }),
        context(allowing),
      ),
    );
    expect(error.errorType).toBe('auth_failed');
  });

  it('a blocked destination is egress_blocked and never contacted', async () => {
    const before = requests.length;
    const error = await connectorFailure(
      clickhouseDriver.test(config({ host: '127.0.0.1', port: httpPort }), context(denying)),
    );
    expect(error.errorType).toBe('egress_blocked');
    expect(requests.length).toBe(before);
  });

  it.each([
    ['url', { url: 'http://[::1]:PORT' }],
    ['connection_string', { connection_string: 'http://reader:right@[::1]:PORT/sales' }],
    ['bare host', { host: '::1', port: 'PORT' }],
    ['bracketed host', { host: '[::1]', port: 'PORT' }],
  ])('reaches an IPv6 literal given as %s, through the guard', async (_form, raw) => {
    const withPort = JSON.parse(JSON.stringify(raw).replace(/PORT/g, String(http6Port))) as Record<
      string,
      unknown
    >;
    if (typeof withPort.port === 'string') withPort.port = Number(withPort.port);
    const c = config({ user: 'reader', password: 'right', database: 'sales', ...withPort });
    expect(c.host).toBe('::1');
    const audit = new SocketAudit((address, port) => allowing.pinned.has(address, port));
    audit.start();
    let outcome: Awaited<ReturnType<typeof clickhouseDriver.test>>;
    try {
      outcome = await clickhouseDriver.test(c, context(allowing));
    } finally {
      audit.stop();
    }
    expect(audit.violations()).toEqual([]);
    expect(audit.allowedConnections().map((a) => `${a.host}:${a.port}`)).toEqual([`::1:${http6Port}`]);
    expect(outcome.details).toEqual({ server_version: '24.3.1.1', database: 'sales' });
  });

  it('a blocked IPv6 destination is egress_blocked and never contacted', async () => {
    const before = requests.length;
    const error = await connectorFailure(
      clickhouseDriver.test(config({ url: `http://[::1]:${http6Port}` }), context(denying)),
    );
    expect(error.errorType).toBe('egress_blocked');
    expect(error.message).toContain(`::1:${http6Port}`);
    expect(requests.length).toBe(before);
  });
});

describe('mssql (stand-in)', () => {
  const config = (raw: Record<string, unknown>): SqlServerConfig =>
    normalizeConfig(
      { type: 'mssql' },
      { host: '127.0.0.1', database: 'd', user: 'sa', password: 'x', ...raw },
    ).values as SqlServerConfig;

  it('a blocked destination is egress_blocked and never contacted', async () => {
    const before = tcpConnections;
    expect(
      (await connectorFailure(mssqlDriver.test(config({ port: tcpPort }), context(denying)))).errorType,
    ).toBe('egress_blocked');
    expect(tcpConnections).toBe(before);
  });

  it('a server that drops the connection is unreachable', async () => {
    const error = await connectorFailure(mssqlDriver.test(config({ port: tcpPort }), context(allowing)));
    expect(error.errorType).toBe('unreachable');
    expect(tcpConnections).toBeGreaterThan(0);
  });

  it('refuses writes before connecting', async () => {
    const rows = mssqlDriver.readRows(
      config({ port: tcpPort }),
      { query: 'DELETE FROM t' },
      context(allowing),
    );
    await expect(rows[Symbol.asyncIterator]().next()).rejects.toMatchObject({ errorType: 'invalid_config' });
  });
});

describe('snowflake (stand-in)', () => {
  const config = (raw: Record<string, unknown>): SnowflakeConfig =>
    normalizeConfig({ type: 'snowflake' }, { account: 'acme', user: 'u', password: 'wrong', ...raw })
      .values as SnowflakeConfig;

  it('logs in through the guarded proxy and maps a refused login to auth_failed', async () => {
    const error = await connectorFailure(
      snowflakeDriver.test(config({ access_url: `http://127.0.0.1:${httpPort}` }), context(allowing)),
    );
    expect(error.errorType).toBe('auth_failed');
    expect(requests.some((r) => r.url.includes('/session/v1/login-request'))).toBe(true);
  });

  it('a blocked account host is egress_blocked and never contacted', async () => {
    const before = requests.length;
    const error = await connectorFailure(
      snowflakeDriver.test(config({ access_url: `http://127.0.0.1:${httpPort}` }), context(denying)),
    );
    expect(error.errorType).toBe('egress_blocked');
    expect(requests.length).toBe(before);
  });
});

describe('read-only query check (servers without a read-only session)', () => {
  it.each(['select 1', 'WITH a AS (select 1) select * from a', "select ';' as x", 'select 1;'])(
    'allows %s',
    (sql) => {
      expect(() => assertReadOnlyQuery(sql)).not.toThrow();
    },
  );

  it.each([
    'delete from t',
    'select 1; drop table t',
    'with x as (delete from t returning *) select * from x',
    'exec sp_x',
  ])('refuses %s', (sql) => {
    expect(() => assertReadOnlyQuery(sql)).toThrow(expect.objectContaining({ errorType: 'invalid_config' }));
  });
});
