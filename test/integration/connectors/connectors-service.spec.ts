import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/common/config';
import { SecretVault } from '../../../src/common/crypto/secret-vault';
import { StoreOrm } from '../../../src/common/database';
import { AppError } from '../../../src/common/errors';
import { createLogger } from '../../../src/common/logging';
import { ConnectorSchema } from '../../../src/modules/connectors/connector.entity';
import { ConnectorRepository } from '../../../src/modules/connectors/connector.repository';
import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import { MASK } from '../../../src/modules/connectors/connector-secrets';
import { toConnectorResponse } from '../../../src/modules/connectors/connectors.dto';
import { ConnectorsService } from '../../../src/modules/connectors/connectors.service';
import { ImportAreas } from '../../../src/modules/connectors/import-areas';
import { TestEgressGuard } from '../../support/test-egress-guard';
import { openRepositoryStore, RepositoryStore } from '../../support/test-store';

let store: RepositoryStore;
let orm: StoreOrm;
let service: ConnectorsService;
let guard: TestEgressGuard;
/** Reads the whole import dir, where people.csv lies. */
const OPERATOR = 'org_op';

beforeAll(async () => {
  store = await openRepositoryStore([ConnectorSchema], 'conn-service-');
  orm = store.orm;
  const config = loadConfig({ SERVICE_DATA_DIR: store.dataDir, NODE_ENV: 'test' });
  mkdirSync(config.importDir, { recursive: true });
  writeFileSync(join(config.importDir, 'people.csv'), 'name,age\nAda,36\nAlan,41\n');
  guard = new TestEgressGuard(['127.0.0.1:5432']);
  service = new ConnectorsService(
    new ConnectorRepository(orm.em),
    new SecretVault({ configured: randomBytes(32), keysDir: config.keysDir }),
    guard,
    config,
    createLogger('silent'),
    new ImportAreas(config, { isOperatorOrg: async (orgId) => orgId === OPERATOR }),
  );
});

afterAll(async () => {
  await store.close();
});

async function appError(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

describe('ConnectorsService', () => {
  it('creates an untested connector with a normalised type and config', async () => {
    const connector = await service.create('org_a', 'people', 'csv', { file_path: 'people.csv' });
    expect(connector).toMatchObject({ connectorType: 'file', status: 'untested', errorMessage: null });
    expect(connector.config.values).toEqual({ file_type: 'csv', file_path: 'people.csv' });
    expect(toConnectorResponse(connector)).toMatchObject({
      connector_type: 'file',
      status: 'untested',
      config: { file_type: 'csv' },
    });
  });

  it('stores azure with provider azure_blob', async () => {
    const connector = await service.create('org_a', 'blob', 'azure', {
      blob_url: 'https://a.blob.core.windows.net/c/x.csv',
    });
    expect(toConnectorResponse(connector)).toMatchObject({ connector_type: 'azure', provider: 'azure_blob' });
  });

  it('encrypts the config at rest and masks secrets in responses', async () => {
    const connector = await service.create('org_a', 'pg', 'postgresql', {
      host: '127.0.0.1',
      database: 'test',
      username: 'postgres',
      password: 'hunter2-secret',
    });
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ config_sealed: string }[]>('select * from connectors where id = ?', [connector.id]);
    expect(JSON.stringify(rows)).not.toContain('hunter2-secret');
    expect(JSON.stringify(rows)).not.toContain('127.0.0.1');
    expect(rows[0].config_sealed).toMatch(/^sv1:/);
    const response = toConnectorResponse(await service.getForOrg('org_a', connector.id));
    expect(response.config).toEqual({
      host: '127.0.0.1',
      port: 5432,
      database: 'test',
      user: 'postgres',
      password: MASK,
      ssl_mode: 'prefer',
    });
  });

  it("hides other organizations' connectors (404)", async () => {
    const connector = await service.create('org_a', 'mine', 'file', { content: 'a\n1' });
    expect((await appError(service.getForOrg('org_b', connector.id))).code).toBe('not_found');
    expect((await appError(service.test('org_b', connector.id))).code).toBe('not_found');
    expect((await appError(service.update('org_b', connector.id, { name: 'x' }))).code).toBe('not_found');
    expect((await appError(service.remove('org_b', connector.id))).code).toBe('not_found');
    expect((await service.list('org_b')).connectors).toHaveLength(0);
  });

  it('moves through the state machine: test → live / error, config change → untested', async () => {
    const connector = await service.create('org_s', 'json', 'json', {
      content: '{"data":[{"a":1},{"a":2}]}',
    });
    const ok = await service.test('org_s', connector.id);
    expect(ok).toMatchObject({
      success: true,
      status: 'live',
      message: 'Parsed 2 record(s) from inline content.',
    });
    expect(ok.details).toMatchObject({ records: 2, source: 'content' });
    expect((await service.getForOrg('org_s', connector.id)).status).toBe('live');

    expect((await service.browse('org_s', connector.id)).items).toEqual([{ name: 'a', kind: 'field' }]);

    await service.update('org_s', connector.id, { config: { file_type: 'json', content: '{"a":' } });
    expect((await service.getForOrg('org_s', connector.id)).status).toBe('untested');
    expect((await appError(service.browse('org_s', connector.id))).code).toBe('not_connected');

    const bad = await service.test('org_s', connector.id);
    expect(bad).toMatchObject({
      success: false,
      status: 'error',
      errorType: 'invalid_payload',
      recoverable: true,
    });
    const failed = await service.getForOrg('org_s', connector.id);
    expect(failed.status).toBe('error');
    expect(failed.errorMessage).toContain('Invalid JSON');

    const renamed = await service.update('org_s', connector.id, { name: 'renamed' });
    expect(renamed).toMatchObject({ name: 'renamed', status: 'error' });

    const fixed = await service.update('org_s', connector.id, {
      config: { file_type: 'json', content: '[]' },
    });
    expect(fixed).toMatchObject({ status: 'untested', errorMessage: null });
  });

  it('keeps stored secrets when the masked config is sent back', async () => {
    const connector = await service.create('org_m', 'pg', 'postgres', {
      host: '127.0.0.1',
      database: 'test',
      user: 'postgres',
      password: 'pw',
    });
    const echoed = toConnectorResponse(connector).config;
    const updated = await service.update('org_m', connector.id, { config: { ...echoed, database: 'other' } });
    expect(updated.config.values).toMatchObject({ password: 'pw', database: 'other' });
  });

  it('lists with a cursor, oldest first', async () => {
    for (let i = 0; i < 5; i += 1) await service.create('org_l', `c${i}`, 'file', { content: 'a\n1' });
    const first = await service.list('org_l', 2);
    expect(first.connectors.map((c) => c.name)).toEqual(['c0', 'c1']);
    const second = await service.list('org_l', 2, first.nextCursor ?? undefined);
    expect(second.connectors.map((c) => c.name)).toEqual(['c2', 'c3']);
    const third = await service.list('org_l', 2, second.nextCursor ?? undefined);
    expect(third.connectors.map((c) => c.name)).toEqual(['c4']);
    expect(third.nextCursor).toBeNull();
    expect((await appError(service.list('org_l', 2, 'garbage'))).code).toBe('invalid_cursor');
  });

  it('validates type and config', async () => {
    expect((await appError(service.create('org_v', 'x', 'oracle', {}))).code).toBe('invalid_type');
    const invalid = await appError(service.create('org_v', 'x', 'postgres', { port: 'x' }));
    expect(invalid.code).toBe('validation_failed');
    expect(invalid.details?.map((d) => d.field)).toEqual(['config.port', 'config.database', 'config.user']);
  });

  it('runs inline tests: a REST connector without base_url says so', async () => {
    expect(await service.testInline('org_i', 'rest', {})).toMatchObject({
      success: false,
      status: 'error',
      message: 'base_url is required.',
      errorType: 'invalid_config',
      recoverable: true,
    });
  });

  it('file_path outside the import dir is path_not_allowed, never read', async () => {
    expect(await service.testInline(OPERATOR, 'file', { file_path: '/etc/passwd' })).toMatchObject({
      success: false,
      errorType: 'path_not_allowed',
    });
    expect(await service.testInline(OPERATOR, 'file', { file_path: 'people.csv' })).toMatchObject({
      success: true,
      message: 'Parsed 2 record(s) from people.csv.',
    });
  });

  it('streams rows of a stored connector for datasets', async () => {
    const connector = await service.create(OPERATOR, 'people', 'file', { file_path: 'people.csv' });
    const rows: Record<string, unknown>[] = [];
    for await (const batch of service.readRows(OPERATOR, connector.id, {}, { batchSize: 1 })) {
      expect(batch).toHaveLength(1);
      rows.push(...batch);
    }
    expect(rows).toEqual([
      { name: 'Ada', age: '36' },
      { name: 'Alan', age: '41' },
    ]);
  });

  it('read failures surface as ConnectorErrors with an error_type', async () => {
    const rows = service.readRowsInline(
      'org_r',
      'postgres',
      { host: '10.255.255.1', database: 'x', user: 'u' },
      { table: 't' },
    );
    const iterator = rows[Symbol.asyncIterator]();
    const error = await iterator.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).errorType).toBe('egress_blocked');
  });
});
