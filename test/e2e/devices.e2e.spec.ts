import { createPublicKey, verify } from 'node:crypto';
import { createApiKey, signupAccount, TestAccount } from '../factories/accounts';
import { deviceHeaders, deviceId } from '../support/devices';
import { filesContaining } from '../support/grep-dir';
import { writeTestLicense } from '../support/licenses';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

const TOKEN = 'x-service-device-binding-token';

describe('device binding of capped keys over HTTP', () => {
  let t: TestApp;
  let owner: TestAccount;
  const issuedTokens: string[] = [];

  const me = (key: string, headers: Record<string, string> = {}) =>
    t.request('GET', '/v1/me', { token: key, headers });
  const bindNew = async (key: string, id: string, host?: string): Promise<string> => {
    const res = await me(key, deviceHeaders(id, { host }));
    expect(res.status).toBe(200);
    const token = res.headers.get(TOKEN) ?? '';
    expect(token).toMatch(/^dbt_/);
    issuedTokens.push(token);
    return token;
  };

  beforeAll(async () => {
    const dir = makeTempDir();
    t = await startTestApp(writeTestLicense(dir, { caps: { max_devices: 40, max_devices_per_key: 3 } }), dir);
    owner = await signupAccount(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('shows the installed license on GET /v1/license', async () => {
    const res = await t.request('GET', '/v1/license', { token: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'active',
      edition: 'enterprise',
      licensee: 'Test Licensee GmbH',
      caps: { max_devices: 40, max_devices_per_key: 3 },
      clock_rollback: null,
    });
    expect(res.body.entitlements).toContain('mcp');
    expect(res.body.days_remaining).toBeGreaterThanOrEqual(364);
    expect((await t.request('GET', '/v1/license')).body.error.code).toBe('authentication_required');
  });

  it('refuses a device_limit above the license max_devices_per_key at key creation (422)', async () => {
    const res = await t.request('POST', '/v1/api-keys', {
      token: owner.apiKey,
      body: { label: 'too many', device_limit: 4 },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([
      { field: 'device_limit', problem: expect.stringContaining('(3)') },
    ]);
    expect((await createApiKey(t, owner.apiKey, { device_limit: 3 })).body.device_limit).toBe(3);
  });

  it('walks the binding states with the exact error codes', async () => {
    const key = (await createApiKey(t, owner.apiKey, { device_limit: 2 })).rawKey;
    const a = deviceId('http-a');

    const none = await me(key);
    expect([none.status, none.body.error.code]).toEqual([401, 'device_binding_required']);
    for (const bad of [deviceId('short', 15), deviceId('long', 65)]) {
      const res = await me(key, deviceHeaders(bad));
      expect([res.status, res.body.error.code]).toEqual([422, 'invalid_device_id']);
    }

    const token = await bindNew(key, a);
    const body = (await me(key, deviceHeaders(a, { token }))).body;
    expect(body.organization.id).toBe(owner.orgId);

    const noToken = await me(key, deviceHeaders(a));
    expect([noToken.status, noToken.body.error.code]).toEqual([401, 'device_binding_token_required']);
    const wrong = await me(key, deviceHeaders(a, { token: `${token.slice(0, -2)}zz` }));
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'invalid_device_binding_token']);
    const clone = await me(key, deviceHeaders(a, { token, host: 'cloned-vm' }));
    expect([clone.status, clone.body.error.code]).toEqual([403, 'device_identity_mismatch']);
    const upgraded = await me(key, deviceHeaders(a, { token, platformVersion: '7.0', sdkVersion: '9.9.9' }));
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.get(TOKEN)).toBeNull();

    await bindNew(key, deviceId('http-b'));
    const full = await me(key, deviceHeaders(deviceId('http-c')));
    expect([full.status, full.body.error.code]).toEqual([402, 'device_limit_reached']);
  });

  it('never exceeds the limit under concurrent first requests', async () => {
    const key = (await createApiKey(t, owner.apiKey, { device_limit: 3 })).rawKey;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => me(key, deviceHeaders(deviceId(`burst-${i}`)))),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(
      results.filter((r) => r.status === 402 && r.body.error.code === 'device_limit_reached'),
    ).toHaveLength(5);
    for (const r of results) if (r.status === 200) issuedTokens.push(r.headers.get(TOKEN) ?? '');
  });

  it('registers a device, lists it, and revocation frees the slot and kills the token at once', async () => {
    const key = await createApiKey(t, owner.apiKey, { device_limit: 1 });
    const id = deviceId('http-reg');
    const token = await bindNew(key.rawKey, id);

    const reg = await t.request('POST', '/v1/device/register', {
      token: key.rawKey,
      headers: deviceHeaders(id, { token }),
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toEqual({
      registration_id: expect.stringMatching(/^dev_/),
      device_id: id,
      license_token: expect.any(String),
      expires_at: expect.any(String),
    });

    const published = await t.request('GET', '/v1/device/license-key', { token: owner.apiKey });
    expect(published.status).toBe(200);
    expect(published.body.kid).toMatch(/^[0-9a-f]{16}$/);
    const [header, claims, sig] = (reg.body.license_token as string).split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({
      alg: 'EdDSA',
      kid: published.body.kid,
    });
    expect(
      verify(
        null,
        Buffer.from(`${header}.${claims}`),
        createPublicKey(published.body.public_key_pem),
        Buffer.from(sig, 'base64url'),
      ),
    ).toBe(true);
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({
      device_id: id,
      key_id: key.id,
      org_id: owner.orgId,
      entitlements: expect.arrayContaining(['simulation', 'mcp']),
      exp: Math.floor(Date.parse(reg.body.expires_at) / 1000),
    });

    const list = await t.request('GET', '/v1/device/list', { token: owner.apiKey });
    expect(list.status).toBe(200);
    const entry = list.body.devices.find(
      (d: { registration_id: string }) => d.registration_id === reg.body.registration_id,
    );
    expect(entry).toMatchObject({
      device_id: id,
      key_id: key.id,
      platform: 'linux',
      platform_version: '6.8.0',
      sdk_version: '1.4.2',
      bound_at: expect.any(String),
      last_seen_at: expect.any(String),
    });

    const blocked = await me(key.rawKey, deviceHeaders(deviceId('http-next')));
    expect(blocked.status).toBe(402);

    const other = await signupAccount(t);
    const foreign = await t.request('DELETE', `/v1/device/${reg.body.registration_id}`, {
      token: other.apiKey,
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'device_not_found']);

    const revoked = await t.request('DELETE', `/v1/device/${reg.body.registration_id}`, {
      token: owner.apiKey,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ registration_id: reg.body.registration_id, revoked: true });

    const stale = await me(key.rawKey, deviceHeaders(id, { token }));
    expect([stale.status, stale.body.error.code]).toEqual([403, 'invalid_device_binding_token']);
    await bindNew(key.rawKey, deviceId('http-next'));
    const again = await t.request('DELETE', `/v1/device/${reg.body.registration_id}`, {
      token: owner.apiKey,
    });
    expect([again.status, again.body.error.code]).toEqual([404, 'device_not_found']);
  });

  it('refuses a binding token that belongs to another key', async () => {
    const keyA = (await createApiKey(t, owner.apiKey, { device_limit: 1 })).rawKey;
    const keyB = (await createApiKey(t, owner.apiKey, { device_limit: 1 })).rawKey;
    const id = deviceId('http-cross');
    const tokenA = await bindNew(keyA, id);
    const res = await me(keyB, deviceHeaders(id, { token: tokenA }));
    expect([res.status, res.body.error.code]).toEqual([403, 'invalid_device_binding_token']);
  });

  it('lets an uncapped key register devices without binding', async () => {
    const uncapped = (await createApiKey(t, owner.apiKey, { device_limit: 0 })).rawKey;
    expect((await me(uncapped)).status).toBe(200);
    const reg = await t.request('POST', '/v1/device/register', {
      token: uncapped,
      headers: deviceHeaders(deviceId('free')),
    });
    expect(reg.status).toBe(201);
    const missing = await t.request('POST', '/v1/device/register', { token: uncapped });
    expect([missing.status, missing.body.error.code]).toEqual([422, 'invalid_device_id']);
  });

  it('keeps binding tokens out of the data dir in clear', () => {
    expect(issuedTokens.length).toBeGreaterThan(5);
    for (const token of issuedTokens) expect(filesContaining(t.dataDir, token.slice(4))).toEqual([]);
  });
});

describe('the appliance device cap over HTTP', () => {
  it('answers 402 device_limit_reached once max_devices machines are bound, across keys, until a key is revoked', async () => {
    const dir = makeTempDir();
    const t = await startTestApp(
      writeTestLicense(dir, { caps: { max_devices: 2, max_devices_per_key: 2 } }),
      dir,
    );
    try {
      const owner = await signupAccount(t);
      const first = await createApiKey(t, owner.apiKey, { device_limit: 2 });
      const k1 = first.rawKey;
      const k2 = (await createApiKey(t, owner.apiKey, { device_limit: 2 })).rawKey;
      expect(
        (await t.request('GET', '/v1/me', { token: k1, headers: deviceHeaders(deviceId('cap-1')) })).status,
      ).toBe(200);
      expect(
        (await t.request('GET', '/v1/me', { token: k2, headers: deviceHeaders(deviceId('cap-2')) })).status,
      ).toBe(200);
      const third = await t.request('GET', '/v1/me', {
        token: k2,
        headers: deviceHeaders(deviceId('cap-3')),
      });
      expect([third.status, third.body.error.code]).toEqual([402, 'device_limit_reached']);

      // Revoking an API key gives its devices' slots back.
      expect((await t.request('DELETE', `/v1/api-keys/${first.id}`, { token: owner.apiKey })).status).toBe(
        200,
      );
      const freed = await t.request('GET', '/v1/me', {
        token: k2,
        headers: deviceHeaders(deviceId('cap-3')),
      });
      expect(freed.status).toBe(200);
      const listed = await t.request('GET', '/v1/device/list', { token: owner.apiKey });
      expect(listed.body.devices.map((d: { device_id: string }) => d.device_id).sort()).toEqual(
        [deviceId('cap-2'), deviceId('cap-3')].sort(),
      );
    } finally {
      await t.close();
    }
  });

  it('keeps the community caps without a license: max_devices_per_key 1', async () => {
    const t = await startTestApp();
    try {
      const owner = await signupAccount(t);
      const res = await t.request('POST', '/v1/api-keys', {
        token: owner.apiKey,
        body: { label: 'k', device_limit: 2 },
      });
      expect([res.status, res.body.error.code]).toEqual([422, 'validation_failed']);
      const license = await t.request('GET', '/v1/license', { token: owner.apiKey });
      expect(license.body).toMatchObject({
        status: 'unlicensed',
        edition: 'community',
        licensee: null,
        expires_at: null,
        days_remaining: null,
        caps: { max_devices: 3, max_devices_per_key: 1 },
      });
      expect(license.body.entitlements).not.toContain('mcp');
    } finally {
      await t.close();
    }
  });
});
