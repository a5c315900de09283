import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, Server } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BlobSASPermissions,
  BlobServiceClient,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import S3rver from 's3rver';
import { AzureConfig, S3Config } from '../../../src/modules/connectors/connector-config';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { ConnectorDriver, DriverContext } from '../../../src/modules/connectors/connector-driver';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import { azureDriver } from '../../../src/modules/connectors/drivers/azure';
import { s3Driver } from '../../../src/modules/connectors/drivers/s3';
import { GuardHarness, startGuard } from '../../support/egress-fixtures';
import { parseLimits } from '../../factories/parse-limits';
import { SocketAudit } from '../../support/socket-audit';
import { connectorFailure } from '../../support/connector-failure';

const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const CSV = 'id,name\n1,Ada\n2,Alan\n3,Grace\n';

let dir: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The audit's predicate: a socket is fine when one of these guards checked and pinned its address. */
function pinnedByAny(guards: GuardHarness[]): (address: string, port: number) => boolean {
  return (address, port) => guards.some((g) => g.pinned.has(address, port));
}

function context(guard: GuardHarness): DriverContext {
  return {
    orgId: 'org_1',
    egress: guard.guard,
    imports: importAreaFor(dir, 'org_1', true, []),
    scratchDir: join(dir, 'scratch'),
    batchSize: 2,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

async function readAll<C>(
  driver: ConnectorDriver<C>,
  config: C,
  ctx: DriverContext,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of driver.readRows(config, {}, ctx)) out.push(...batch);
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'conn-objects-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('s3 driver against s3rver', () => {
  let server: S3rver;
  let port: number;
  let allowing: GuardHarness;
  let denying: GuardHarness;
  let withMetadata: GuardHarness;
  /** An instance-metadata stand-in (IMDSv2); the socket audit routes the pinned 169.254.169.254:80 to it. */
  let imds: Server;
  let imdsPort: number;
  const imdsSeen: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    server = new S3rver({ port, address: '127.0.0.1', silent: true, directory: join(dir, 's3rver') });
    await server.run();
    const setup = new S3Client({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await setup.send(new CreateBucketCommand({ Bucket: 'data' }));
    await setup.send(new PutObjectCommand({ Bucket: 'data', Key: 'exports/people.csv', Body: CSV }));
    await setup.send(
      new PutObjectCommand({
        Bucket: 'data',
        Key: 'exports/wrapped.json',
        Body: '{"items":[{"a":{"b":1}}]}',
      }),
    );
    setup.destroy();
    allowing = await startGuard(join(dir, 's3-allow'), [`127.0.0.1:${port}`]);
    denying = await startGuard(join(dir, 's3-deny'), []);
    withMetadata = await startGuard(join(dir, 's3-meta'), [`127.0.0.1:${port}`, '169.254.169.254:80']);
    imds = createHttpServer((request, response) => {
      const token = request.headers['x-aws-ec2-metadata-token'];
      imdsSeen.push(`${request.method} ${request.url} ${typeof token === 'string' ? token : '-'}`);
      if (request.method === 'PUT' && request.url === '/latest/api/token') return void response.end('tok');
      if (request.headers['x-aws-ec2-metadata-token'] !== 'tok') return void response.writeHead(401).end();
      if (request.url === '/latest/meta-data/iam/security-credentials/') return void response.end('reader\n');
      if (request.url === '/latest/meta-data/iam/security-credentials/reader') {
        return void response.end(
          JSON.stringify({ Code: 'Success', AccessKeyId: 'S3RVER', SecretAccessKey: 'S3RVER', Token: 't' }),
        );
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => imds.listen(0, '127.0.0.1', resolve));
    imdsPort = (imds.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await allowing.close();
    await denying.close();
    await withMetadata.close();
    await server.close();
    imds.closeAllConnections();
    await new Promise<void>((resolve) => imds.close(() => resolve()));
  });

  const config = (raw: Record<string, unknown>): S3Config =>
    normalizeConfig(
      { type: 's3' },
      {
        bucket: 'data',
        endpoint_url: `http://127.0.0.1:${port}`,
        access_key_id: 'S3RVER',
        secret_access_key: 'S3RVER',
        ...raw,
      },
    ).values as S3Config;

  it('downloads and parses the object (file_type from the extension)', async () => {
    const outcome = await s3Driver.test(config({ key: 'exports/people.csv' }), context(allowing));
    expect(outcome.message).toContain('parsed 3 csv record(s)');
    expect(await readAll(s3Driver, config({ key: 'exports/people.csv' }), context(allowing))).toEqual([
      { id: '1', name: 'Ada' },
      { id: '2', name: 'Alan' },
      { id: '3', name: 'Grace' },
    ]);
    expect(await readAll(s3Driver, config({ key: 'exports/wrapped.json' }), context(allowing))).toEqual([
      { 'a.b': 1 },
    ]);
  });

  it('browses the objects beside the key and the fields of the object', async () => {
    const result = await s3Driver.browse(config({ key: 'exports/people.csv' }), context(allowing));
    expect(
      result.items
        .filter((i) => i.kind === 'object')
        .map((i) => i.name)
        .sort(),
    ).toEqual(['exports/people.csv', 'exports/wrapped.json']);
    expect(result.items.filter((i) => i.kind === 'field').map((i) => i.name)).toEqual(['id', 'name']);
  });

  it('a missing key is not_found', async () => {
    expect(
      (await connectorFailure(s3Driver.test(config({ key: 'exports/none.csv' }), context(allowing))))
        .errorType,
    ).toBe('not_found');
  });

  it('without credentials, anonymous or ambient_credentials the config is refused before any request', async () => {
    const raw = normalizeConfig(
      { type: 's3' },
      { bucket: 'data', key: 'x.csv', endpoint_url: `http://127.0.0.1:${port}` },
    ).values as S3Config;
    expect((await connectorFailure(s3Driver.test(raw, context(allowing)))).errorType).toBe('invalid_config');
  });

  it('ambient credentials need the instance-metadata address to be allowed', async () => {
    const raw = normalizeConfig(
      { type: 's3' },
      { bucket: 'data', key: 'x.csv', endpoint_url: `http://127.0.0.1:${port}`, ambient_credentials: true },
    ).values as S3Config;
    expect((await connectorFailure(s3Driver.test(raw, context(allowing)))).errorType).toBe('egress_blocked');
  });

  it('a blocked endpoint is egress_blocked', async () => {
    expect(
      (await connectorFailure(s3Driver.test(config({ key: 'exports/people.csv' }), context(denying))))
        .errorType,
    ).toBe('egress_blocked');
  });

  it('a blocked endpoint is egress_blocked with anonymous access too', async () => {
    const anonymous = normalizeConfig(
      { type: 's3' },
      {
        bucket: 'data',
        key: 'exports/people.csv',
        endpoint_url: `http://127.0.0.1:${port}`,
        anonymous: true,
      },
    ).values as S3Config;
    const audit = new SocketAudit(pinnedByAny([allowing, denying, withMetadata]));
    audit.start();
    let errorType: string;
    try {
      errorType = (await connectorFailure(s3Driver.test(anonymous, context(denying)))).errorType;
    } finally {
      audit.stop();
    }
    expect(audit.violations()).toEqual([]);
    expect(errorType).toBe('egress_blocked');
  });

  it('opens sockets only to addresses the guard pinned, in every credential mode', async () => {
    const base = { bucket: 'data', key: 'exports/people.csv', endpoint_url: `http://127.0.0.1:${port}` };
    const mode = (raw: Record<string, unknown>): S3Config =>
      normalizeConfig({ type: 's3' }, { ...base, ...raw }).values as S3Config;
    const audit = new SocketAudit(pinnedByAny([allowing, denying, withMetadata]));
    audit.redirect('169.254.169.254', 80, '127.0.0.1', imdsPort);
    const outcomes: string[] = [];
    const run = async (name: string, config: S3Config, guard: GuardHarness): Promise<void> => {
      try {
        outcomes.push(`${name}: ${(await readAll(s3Driver, config, context(guard))).length} rows`);
      } catch (error) {
        outcomes.push(`${name}: ${(error as ConnectorError).errorType}`);
      }
    };
    audit.start();
    try {
      await run('static keys', mode({ access_key_id: 'S3RVER', secret_access_key: 'S3RVER' }), allowing);
      await run(
        'session token',
        mode({ access_key_id: 'S3RVER', secret_access_key: 'S3RVER', session_token: 't' }),
        allowing,
      );
      await run('anonymous', mode({ anonymous: true }), allowing);
      await run('anonymous, blocked', mode({ anonymous: true }), denying);
      await run('instance role', mode({ ambient_credentials: true }), withMetadata);
      await run('instance role, metadata blocked', mode({ ambient_credentials: true }), allowing);
      await run(
        'static keys, blocked',
        mode({ access_key_id: 'S3RVER', secret_access_key: 'S3RVER' }),
        denying,
      );
    } finally {
      audit.stop();
    }
    expect(audit.violations()).toEqual([]);
    expect(outcomes).toEqual([
      'static keys: 3 rows',
      'session token: 3 rows',
      'anonymous: 3 rows',
      'anonymous, blocked: egress_blocked',
      'instance role: 3 rows',
      'instance role, metadata blocked: egress_blocked',
      'static keys, blocked: egress_blocked',
    ]);
    expect(imdsSeen).toEqual([
      'PUT /latest/api/token -',
      'GET /latest/meta-data/iam/security-credentials/ tok',
      'GET /latest/meta-data/iam/security-credentials/reader tok',
    ]);
    const destinations = new Set(audit.allowedConnections().map((a) => `${a.host}:${a.port}`));
    expect([...destinations].sort()).toEqual([`127.0.0.1:${port}`, '169.254.169.254:80'].sort());
  });
});

describe('azure driver against azurite', () => {
  let azurite: ChildProcess;
  let port: number;
  let allowing: GuardHarness;
  let denying: GuardHarness;

  beforeAll(async () => {
    port = await freePort();
    azurite = spawn(
      process.execPath,
      [
        require.resolve('azurite/dist/src/blob/main.js'),
        '--blobHost',
        '127.0.0.1',
        '--blobPort',
        String(port),
        '--inMemoryPersistence',
        '--disableTelemetry',
        '--skipApiVersionCheck',
        '--silent',
        '--loose',
      ],
      { stdio: 'ignore' },
    );
    const connectionString = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_KEY};BlobEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
    const setup = BlobServiceClient.fromConnectionString(connectionString);
    for (let attempt = 0; ; attempt += 1) {
      try {
        await setup.getContainerClient('data').createIfNotExists();
        break;
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await setup.getContainerClient('data').getBlockBlobClient('exports/people.csv').upload(CSV, CSV.length);
    allowing = await startGuard(join(dir, 'az-allow'), [`127.0.0.1:${port}`]);
    denying = await startGuard(join(dir, 'az-deny'), []);
  }, 60_000);

  afterAll(async () => {
    await allowing.close();
    await denying.close();
    azurite.kill('SIGTERM');
  });

  const connectionString = (): string =>
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_KEY};BlobEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
  const config = (raw: Record<string, unknown>): AzureConfig =>
    normalizeConfig({ type: 'azure' }, raw).values as AzureConfig;

  it('reads a blob through a connection string', async () => {
    const c = config({
      connection_string: connectionString(),
      container: 'data',
      blob: 'exports/people.csv',
    });
    expect((await azureDriver.test(c, context(allowing))).message).toContain('parsed 3 csv record(s)');
    expect(await readAll(azureDriver, c, context(allowing))).toHaveLength(3);
    const browse = await azureDriver.browse(c, context(allowing));
    expect(browse.items.filter((i) => i.kind === 'object').map((i) => i.name)).toEqual([
      'exports/people.csv',
    ]);
  });

  it('a wrong account key is auth_failed', async () => {
    const wrong = connectionString().replace(DEV_KEY, Buffer.alloc(64, 7).toString('base64'));
    const c = config({ connection_string: wrong, container: 'data', blob: 'exports/people.csv' });
    expect((await connectorFailure(azureDriver.test(c, context(allowing)))).errorType).toBe('auth_failed');
  });

  it('a missing blob is not_found', async () => {
    const c = config({ connection_string: connectionString(), container: 'data', blob: 'exports/none.csv' });
    expect((await connectorFailure(azureDriver.test(c, context(allowing)))).errorType).toBe('not_found');
  });

  it('a blocked account is egress_blocked', async () => {
    const c = config({
      connection_string: connectionString(),
      container: 'data',
      blob: 'exports/people.csv',
    });
    expect((await connectorFailure(azureDriver.test(c, context(denying)))).errorType).toBe('egress_blocked');
  });

  it('opens sockets only to addresses the guard pinned, in every credential mode', async () => {
    const sas = generateBlobSASQueryParameters(
      {
        containerName: 'data',
        blobName: 'exports/people.csv',
        permissions: BlobSASPermissions.parse('r'),
        expiresOn: new Date(Date.now() + 3_600_000),
      },
      new StorageSharedKeyCredential('devstoreaccount1', DEV_KEY),
    ).toString();
    const account = `http://127.0.0.1:${port}/devstoreaccount1`;
    const blob = { container: 'data', blob: 'exports/people.csv' };
    const audit = new SocketAudit(pinnedByAny([allowing, denying]));
    const outcomes: string[] = [];
    const run = async (name: string, raw: Record<string, unknown>, guard: GuardHarness): Promise<void> => {
      try {
        outcomes.push(`${name}: ${(await readAll(azureDriver, config(raw), context(guard))).length} rows`);
      } catch (error) {
        outcomes.push(`${name}: ${(error as ConnectorError).errorType}`);
      }
    };
    audit.start();
    try {
      await run('account key', { connection_string: connectionString(), ...blob }, allowing);
      await run(
        'SAS connection string',
        { connection_string: `BlobEndpoint=${account};SharedAccessSignature=${sas}`, ...blob },
        allowing,
      );
      await run('account_url with SAS', { account_url: `${account}?${sas}`, ...blob }, allowing);
      await run('blob_url with SAS', { blob_url: `${account}/data/exports/people.csv?${sas}` }, allowing);
      await run('anonymous blob_url', { blob_url: `${account}/data/exports/people.csv` }, allowing);
      await run(
        'development storage',
        { connection_string: 'UseDevelopmentStorage=true', ...blob },
        allowing,
      );
      await run('account key, blocked', { connection_string: connectionString(), ...blob }, denying);
      await run('anonymous, blocked', { blob_url: `${account}/data/exports/people.csv` }, denying);
    } finally {
      audit.stop();
    }
    expect(audit.violations()).toEqual([]);
    expect(outcomes).toEqual([
      'account key: 3 rows',
      'SAS connection string: 3 rows',
      'account_url with SAS: 3 rows',
      'blob_url with SAS: 3 rows',
      'anonymous blob_url: auth_failed',
      'development storage: egress_blocked',
      'account key, blocked: egress_blocked',
      'anonymous, blocked: egress_blocked',
    ]);
    expect(new Set(audit.allowedConnections().map((a) => `${a.host}:${a.port}`))).toEqual(
      new Set([`127.0.0.1:${port}`]),
    );
  });
});
