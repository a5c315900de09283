import { generateKeyPairSync } from 'node:crypto';
import { EgressDecisionRepository } from '../../src/modules/egress/egress-decision.repository';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { PinnedDestinations } from '../support/pinned-destinations';
import { SocketAudit } from '../support/socket-audit';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

const serviceAccount = JSON.stringify({
  type: 'service_account',
  project_id: 'proj',
  client_email: 'reader@proj.iam.gserviceaccount.com',
  private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
});

/** Every connector type with a network driver, in each credential mode it has, aimed at `base` (host:port). */
function connectorModes(base: string): [string, string, Record<string, unknown>][] {
  const [host, port] = [base.split(':')[0], Number(base.split(':')[1])];
  const http = `http://${base}`;
  const object = { bucket: 'data', key: 'x.csv' };
  const blob = { container: 'data', blob: 'x.csv' };
  const sql = { host, port, database: 'd' };
  return [
    ['s3 anonymous', 's3', { ...object, endpoint_url: http, anonymous: true }],
    ['s3 static keys', 's3', { ...object, endpoint_url: http, access_key_id: 'AK', secret_access_key: 'SK' }],
    [
      's3 session token',
      's3',
      { ...object, endpoint_url: http, access_key_id: 'AK', secret_access_key: 'SK', session_token: 'T' },
    ],
    ['s3 instance role', 's3', { ...object, endpoint_url: http, ambient_credentials: true }],
    ['gcs anonymous', 'gcs', { bucket: 'data', blob: 'x.csv', endpoint_url: http, anonymous: true }],
    [
      'gcs service account',
      'gcs',
      { bucket: 'data', blob: 'x.csv', endpoint_url: http, credentials: serviceAccount },
    ],
    ['gcs ambient', 'gcs', { bucket: 'data', blob: 'x.csv', endpoint_url: http, ambient_credentials: true }],
    ['bigquery service account', 'bigquery', { endpoint_url: http, service_account_json: serviceAccount }],
    ['bigquery ambient', 'bigquery', { endpoint_url: http, project_id: 'proj', ambient_credentials: true }],
    [
      'azure account key',
      'azure',
      {
        ...blob,
        connection_string: `AccountName=a;AccountKey=${Buffer.alloc(64, 1).toString('base64')};BlobEndpoint=${http}/a`,
      },
    ],
    [
      'azure SAS connection string',
      'azure',
      { ...blob, connection_string: `BlobEndpoint=${http}/a;SharedAccessSignature=sv=1&sig=x` },
    ],
    ['azure account_url with SAS', 'azure', { ...blob, account_url: `${http}/a?sv=1&sig=x` }],
    ['azure anonymous blob_url', 'azure', { blob_url: `${http}/a/data/x.csv` }],
    ['snowflake password', 'snowflake', { account: 'acme', user: 'u', password: 'p', access_url: http }],
    ['snowflake DSN', 'snowflake', { connection_string: `snowflake://u:p@acme/db/sch`, access_url: http }],
    ['clickhouse password', 'clickhouse', { host, port, user: 'u', password: 'p' }],
    ['clickhouse url', 'clickhouse', { url: http, user: 'u', password: 'p' }],
    ['clickhouse DSN', 'clickhouse', { connection_string: `http://u:p@${base}/d` }],
    ['mssql password', 'mssql', { ...sql, user: 'sa', password: 'p' }],
    ['mssql DSN', 'mssql', { connection_string: `mssql://sa:p@${base}/d` }],
    ['postgres password', 'postgres', { ...sql, user: 'u', password: 'p' }],
    ['postgres DSN', 'postgres', { connection_string: `postgresql://u:p@${base}/d` }],
    ['redshift password', 'redshift', { ...sql, user: 'u', password: 'p' }],
    ['mysql password', 'mysql', { ...sql, user: 'u', password: 'p' }],
    ['mysql DSN', 'mysql', { connection_string: `mysql://u:p@${base}/d` }],
    ['redis password', 'redis', { host, port, password: 'p' }],
    ['elasticsearch basic', 'elasticsearch', { url: http, username: 'u', password: 'p' }],
    ['neo4j bolt', 'neo4j', { url: `bolt://${base}`, username: 'u', password: 'p' }],
    ['neo4j routing', 'neo4j', { url: `neo4j://${base}`, username: 'u', password: 'p', database: 'd' }],
    ['elasticsearch api key', 'elasticsearch', { url: http, api_key: 'k' }],
    ['github_repo token', 'github_repo', { owner: 'a', repo: 'b', token: 't', base_url: http }],
    ['gitlab_repo token', 'gitlab_repo', { project: 'a/b', token: 't', base_url: http }],
    [
      'bitbucket_repo Data Center token',
      'bitbucket_repo',
      { workspace: 'a', repo: 'b', token: 't', base_url: http },
    ],
    [
      'bitbucket_repo Cloud token',
      'bitbucket_repo',
      { workspace: 'a', repo: 'b', token: 't', base_url: `${http}/2.0` },
    ],
    ['rest no auth', 'rest', { base_url: http }],
    ['rest bearer', 'rest', { base_url: http, auth_type: 'bearer', token: 't' }],
    ['rest api key', 'rest', { base_url: http, auth_type: 'api_key', api_key: 'k' }],
    ['rest basic', 'rest', { base_url: http, auth_type: 'basic', username: 'u', password: 'p' }],
  ];
}

/**
 * "No other outbound connection": every TCP connection the process opens while the daemon boots and works must go
 * to an address the egress guard checked and pinned, and every attempt shows in the privacy report. The audit hooks
 * net.Socket#connect (tls, http, undici and the database drivers all end there) and refuses anything else, so an
 * SDK that reaches for the metadata address fails this test without getting there.
 */
describe('outbound sockets of the daemon', () => {
  let audit: SocketAudit;
  const pinned = new PinnedDestinations();
  let t: TestApp;
  /** The first account on the appliance: the operator organization, which may read the privacy report. */
  let operatorToken: string;
  let allowed: Receiver;
  let forbidden: Receiver;

  beforeAll(async () => {
    allowed = await startReceiver();
    forbidden = await startReceiver();
    audit = new SocketAudit((address, port) => pinned.has(address, port));
    audit.start();
    t = await startTestApp({
      SERVICE_EGRESS_ALLOW: `127.0.0.1:${allowed.port}`,
      SERVICE_PREVIEW_RATE_LIMIT: '1000',
    });
    pinned.watch(t.app.get(EgressDecisionRepository));
    operatorToken = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    audit.stop();
    await t.close();
    await allowed.close();
    await forbidden.close();
  });

  it('opens sockets only to destinations the guard pinned', async () => {
    const token = operatorToken;
    const good = await t.request('POST', '/v1/webhooks/test', {
      token,
      body: { callback_url: `${allowed.url}/x` },
    });
    expect(good.body.success).toBe(true);
    for (const url of [
      `${forbidden.url}/`,
      `http://localhost:${forbidden.port}/`,
      `http://[::ffff:127.0.0.1]:${forbidden.port}/`,
      `http://[64:ff9b::7f00:1]:${allowed.port}/`,
      `http://[::127.0.0.1]:${allowed.port}/`,
    ]) {
      const bad = await t.request('POST', '/v1/webhooks/test', { token, body: { callback_url: url } });
      expect(bad.body.success).toBe(false);
    }
    await t.request('GET', '/v1/admin/privacy-report', { token });

    expect(audit.violations()).toEqual([]);
    const outbound = audit.allowedConnections();
    expect(outbound.length).toBeGreaterThanOrEqual(1);
    expect(outbound.every((o) => o.port === allowed.port)).toBe(true);
    expect(forbidden.connections).toBe(0);
  });

  it('connectors in every credential mode open nothing the guard did not pin, and every attempt is reported', async () => {
    const token = (await signupAccount(t)).apiKey;
    const attempts = async (): Promise<number> => {
      const report = await t.request('GET', '/v1/admin/privacy-report', { token: operatorToken });
      return (report.body.egress_24h as { attempts: number }).attempts;
    };
    const startAttempts = await attempts();
    const outcomes: string[] = [];
    const modes = [
      ...connectorModes(`127.0.0.1:${forbidden.port}`).map((m) => ['forbidden', ...m] as const),
      ...connectorModes(`127.0.0.1:${allowed.port}`).map((m) => ['allowed', ...m] as const),
    ];
    for (const [where, name, connectorType, config] of modes) {
      const response = await t.request('POST', '/v1/connectors/test', {
        token,
        body: { connector_type: connectorType, config },
      });
      const errorType = response.body.success === true ? 'ok' : String(response.body.error_type);
      outcomes.push(`${where} ${name}: ${response.status} ${errorType}`);
    }

    expect(audit.violations()).toEqual([]);
    // A refused endpoint is egress_blocked in every mode; the allowed one is a plain HTTP server, so the drivers
    // get far enough to fail (or parse "ok") in their own ways, but none answers 500.
    expect(outcomes.filter((o) => o.startsWith('forbidden') && !o.endsWith(': 200 egress_blocked'))).toEqual(
      [],
    );
    expect(outcomes.filter((o) => !o.includes(': 200 '))).toEqual([]);
    expect(forbidden.connections).toBe(0);
    // Every mode asked the guard at least once, so the report counts at least one attempt per mode.
    expect((await attempts()) - startAttempts).toBeGreaterThanOrEqual(modes.length);
  });
});
