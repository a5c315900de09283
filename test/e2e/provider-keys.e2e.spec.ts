import { randomBytes } from 'node:crypto';
import { createApiKey, signupAccount } from '../factories/accounts';
import { filesContaining } from '../support/grep-dir';
import { startTestApp, TestApp } from '../support/test-app';

describe('provider keys (BYOK) over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  });
  afterAll(async () => {
    await t.close();
  });

  it('sets, rotates, lists and deletes; never returns the secret; only admins may', async () => {
    const owner = await signupAccount(t);
    const member = (await createApiKey(t, owner.apiKey, { role: 'member' })).rawKey;
    const admin = (await createApiKey(t, owner.apiKey, { role: 'admin' })).rawKey;
    const secret = `sk-live-${randomBytes(24).toString('hex')}`;
    const rotated = `sk-live-${randomBytes(24).toString('hex')}`;

    const denied = await t.request('POST', '/v1/provider-keys', {
      token: member,
      body: { backend: 'openai', api_key: secret },
    });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_role']);
    expect((await t.request('GET', '/v1/provider-keys', { token: member })).status).toBe(403);

    const set = await t.request('POST', '/v1/provider-keys', {
      token: admin,
      body: { backend: 'openai', api_key: secret },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ backend: 'openai', updated_at: expect.any(String) });
    const again = await t.request('POST', '/v1/provider-keys', {
      token: owner.apiKey,
      body: { backend: 'openai', api_key: rotated },
    });
    expect(again.status).toBe(200);
    await t.request('POST', '/v1/provider-keys', {
      token: admin,
      body: { backend: 'engine', api_key: 'engine-key-value-123' },
    });

    const list = await t.request('GET', '/v1/provider-keys', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      keys: [
        { backend: 'engine', updated_at: expect.any(String) },
        { backend: 'openai', updated_at: again.body.updated_at },
      ],
    });
    expect(list.text).not.toContain(rotated);

    const other = await signupAccount(t);
    expect((await t.request('GET', '/v1/provider-keys', { token: other.apiKey })).body).toEqual({ keys: [] });
    const foreign = await t.request('DELETE', '/v1/provider-keys/openai', { token: other.apiKey });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'provider_key_not_found']);

    const deleted = await t.request('DELETE', '/v1/provider-keys/openai', { token: admin });
    expect(deleted.status).toBe(200);
    const gone = await t.request('DELETE', '/v1/provider-keys/openai', { token: admin });
    expect([gone.status, gone.body.error.code]).toEqual([404, 'provider_key_not_found']);

    for (const value of [secret, rotated, 'engine-key-value-123'])
      expect(filesContaining(t.dataDir, value)).toEqual([]);
  });

  it.each([
    ['an empty secret', { backend: 'openai', api_key: '' }, 'api_key'],
    ['a blank secret', { backend: 'openai', api_key: '   ' }, 'api_key'],
    ['a 100 KB secret', { backend: 'openai', api_key: 'k'.repeat(100 * 1024) }, 'api_key'],
    ['a missing secret', { backend: 'openai' }, 'api_key'],
    ['a numeric secret', { backend: 'openai', api_key: 12345 }, 'api_key'],
    ['a bad backend name', { backend: 'Open AI!', api_key: 'x' }, 'backend'],
    ['an unknown field', { backend: 'openai', api_key: 'x', extra: 1 }, 'extra'],
  ])('answers 422 validation_failed for %s', async (_name, body, field) => {
    const owner = await signupAccount(t);
    const res = await t.request('POST', '/v1/provider-keys', { token: owner.apiKey, body });
    expect([res.status, res.body.error.code]).toEqual([422, 'validation_failed']);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('provider keys without SERVICE_CONFIG_ENCRYPTION_KEY', () => {
  it('answers 409 encryption_key_required', async () => {
    const t = await startTestApp();
    try {
      const owner = await signupAccount(t);
      const res = await t.request('POST', '/v1/provider-keys', {
        token: owner.apiKey,
        body: { backend: 'openai', api_key: 'sk-x' },
      });
      expect([res.status, res.body.error.code]).toEqual([409, 'encryption_key_required']);
      expect((await t.request('GET', '/v1/provider-keys', { token: owner.apiKey })).body).toEqual({
        keys: [],
      });
    } finally {
      await t.close();
    }
  });
});
