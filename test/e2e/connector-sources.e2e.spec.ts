import * as fs from 'node:fs';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { createClient } from 'redis';
import { signupAccount } from '../factories/accounts';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect → query, for the sources beyond SQL, objects, REST and files. */
describe('connector sources over HTTP: redis', () => {
  const DB = 12;
  const PREFIX = `e2e_${process.pid}_${Date.now()}`;
  const redis = createClient({ socket: { host: '127.0.0.1', port: 6379 }, database: DB });
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    await redis.connect();
    for (let i = 1; i <= 3; i += 1) {
      await redis.hSet(`${PREFIX}:sale:${i}`, {
        region: ['north', 'south', 'east'][i - 1],
        units: String(i),
      });
    }
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: '127.0.0.1:6379' });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
  });

  it('creates, tests, browses and onboards the hashes of a key pattern', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: { name: 'cache', connector_type: 'redis', config: { host: '127.0.0.1', db: DB, password: '' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({
      host: '127.0.0.1',
      port: 6379,
      db: DB,
      tls: false,
      password: '********',
    });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });
    expect(tested.body.message).toMatch(/^Connected to Redis/);

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toContainEqual(
      expect.objectContaining({ name: `${PREFIX}:sale:*`, kind: 'key_pattern', type: 'hash', rows: 3 }),
    );

    const missing = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'redis', dataset_name: 'no_pattern', connection_id: id },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([
      { field: 'pattern', problem: 'is required for redis connectors' },
    ]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'redis',
        dataset_name: 'sales',
        connection_id: id,
        pattern: `${PREFIX}:sale:*`,
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 3, columns: 3 } });
    const rows = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: connected.body.dataset_id, select: ['region', 'units'], limit: 10 },
    });
    // SCAN order is the server's: compared as a set.
    expect(
      rows.body.rows.map((row: { region: string; units: number }) => `${row.region}=${row.units}`).sort(),
    ).toEqual(['east=3', 'north=1', 'south=2']);

    const bounded = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'redis',
        dataset_name: 'too_many',
        connection_id: id,
        pattern: `${PREFIX}:*`,
        max_keys: 2,
      },
    });
    expect(bounded.body).toMatchObject({ status: 'failed' });
    expect(bounded.body.message).toContain('matches more than 2 keys');
  });
});

describe('connector sources over HTTP: local_repo', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    // The first account is the operator organization, which reads the whole import dir.
    token = (await signupAccount(t)).apiKey;
    const dir = join(t.config.importDir, 'repos', 'sales');
    mkdirSync(dir, { recursive: true });
    await git.init({ fs, dir, defaultBranch: 'main' });
    writeFileSync(join(dir, 'sales.csv'), 'region,units\nnorth,1\nsouth,2\n');
    await git.add({ fs, dir, filepath: 'sales.csv' });
    await git.commit({ fs, dir, message: 'Sales', author: { name: 'T', email: 't@example.test' } });
    symlinkSync(makeTempDir('outside-'), join(t.config.importDir, 'repos', 'escape'));
  });

  afterAll(async () => {
    await t.close();
  });

  it('creates, tests, browses and onboards a data file of a git repository', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: { name: 'repo', connector_type: 'local_repo', config: { path: 'repos/sales', ref: 'main' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });
    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toEqual([{ name: 'sales.csv', kind: 'file', type: 'csv' }]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'local_repo',
        dataset_name: 'repo_sales',
        connection_id: id,
        path: 'sales.csv',
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
  });

  it('refuses a repository reached through a symlink leading out of the import dir', async () => {
    const tested = await t.request('POST', '/v1/connectors/test', {
      token,
      body: { connector_type: 'local_repo', config: { path: 'repos/escape' } },
    });
    expect(tested.body).toMatchObject({ success: false, error_type: 'path_not_allowed' });
  });
});
