import { join } from 'node:path';
import { createApiKey, login, signupAccount, tokenFromMail, waitForMail } from '../factories/accounts';
import { deviceHeaders, deviceId } from '../support/devices';
import { createTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

/** Two daemons on one PostgreSQL database, sharing the secrets and the keys directory as scale-out requires. */
describe('two replicas on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const storage = makeTempDir('ds-shared-storage-');
    const shared = {
      ...sharedSecretsEnv(join(storage, 'keys')),
      SERVICE_DATASETS_DIR: join(storage, 'datasets'),
      SERVICE_DATABASE_URL: db.url,
    };
    [a, b] = await Promise.all([startTestApp(shared), startTestApp(shared)]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await db.drop();
  });

  it('refuses a key revoked through one replica on the other at its next request', async () => {
    const owner = await signupAccount(a);
    const other = await createApiKey(a, owner.apiKey, { role: 'owner' });
    for (let i = 0; i < 3; i++) {
      expect((await b.request('GET', '/v1/api-keys', { token: owner.apiKey })).status).toBe(200);
    }
    const revoked = await a.request('DELETE', `/v1/api-keys/${owner.apiKeyId}`, { token: other.rawKey });
    expect(revoked.status).toBe(200);

    const refused = await b.request('GET', '/v1/api-keys', { token: owner.apiKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    expect((await b.request('GET', '/v1/api-keys', { token: other.rawKey })).status).toBe(200);
  });

  it('accepts on one replica the session a user logged into on the other', async () => {
    const owner = await signupAccount(a);
    const login = await b.request('POST', '/auth/login', {
      body: { email: owner.email, password: owner.password },
    });
    expect(login.status).toBe(200);
    const me = await a.request('GET', '/v1/me', { token: login.body.access_token });
    expect(me.status).toBe(200);
  });

  it('refuses on one replica the sessions a password reset through the other ended, at their next request', async () => {
    const owner = await signupAccount(a);
    const session = await login(b, owner.email, owner.password);
    for (let i = 0; i < 3; i++) {
      expect((await b.request('GET', '/v1/me', { token: session })).status).toBe(200);
    }
    await a.request('POST', '/auth/forgot-password', { body: { email: owner.email } });
    const token = tokenFromMail(await waitForMail(a, owner.email, /reset-password\?token=/));
    const reset = await a.request('POST', '/auth/reset-password', {
      body: { token, new_password: 'a brand new passphrase' },
    });
    expect(reset.status).toBe(200);

    const refused = await b.request('GET', '/v1/me', { token: session });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_session');
  });

  it('ingests on one replica a file uploaded through the other, and answers its queries on both', async () => {
    const owner = await signupAccount(a);
    const csv = 'sku,stock\nsku0,80\nsku1,120\n';
    const upload = await a.request('POST', '/v1/connectors/uploads', {
      token: owner.apiKey,
      rawBody: csv,
      headers: { 'content-type': 'application/octet-stream', 'x-filename': 'stock.csv' },
    });
    expect(upload.status).toBe(201);
    const connector = await b.request('POST', '/v1/connectors', {
      token: owner.apiKey,
      body: {
        name: 'stock',
        connector_type: 'file',
        config: { file_type: 'csv', file_path: upload.body.file_path },
      },
    });
    expect(connector.status).toBe(201);
    const connect = await b.request('POST', '/v1/data/connect', {
      token: owner.apiKey,
      body: {
        connection_type: 'file',
        dataset_name: 'stock',
        connection_id: connector.body.id,
        visibility: 'private',
      },
    });
    expect(connect.status).toBe(200);
    expect(connect.body).toMatchObject({ status: 'ready' });
    for (const replica of [a, b]) {
      const query = await replica.request('POST', '/v1/query', {
        token: owner.apiKey,
        body: { dataset_id: connect.body.dataset_id, select: ['sku', 'stock'], limit: 10 },
      });
      expect(query.status).toBe(200);
      expect(query.body.rows).toEqual([
        { sku: 'sku0', stock: 80 },
        { sku: 'sku1', stock: 120 },
      ]);
    }
  });

  it('never exceeds a key’s device slots under concurrent first requests split over both replicas', async () => {
    const owner = await signupAccount(a);
    const key = (await createApiKey(a, owner.apiKey, { device_limit: 1 })).rawKey;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).request('GET', '/v1/me', {
          token: key,
          headers: deviceHeaders(deviceId(`replica-burst-${i}`)),
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 402 && r.body.error.code === 'device_limit_reached'),
    ).toHaveLength(9);
  });
});
