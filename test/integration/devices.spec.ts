import { createPublicKey, verify } from 'node:crypto';
import { AppError } from '../../src/common/errors';
import { BindResult, CappedKey, DevicesService } from '../../src/modules/devices/devices.service';
import { deviceHeaders, deviceId } from '../support/devices';
import { filesContaining } from '../support/grep-dir';
import { writeTestLicense } from '../support/licenses';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'ok';
}

const TOKEN_HEADER = 'X-Service-Device-Binding-Token';
const tokenOf = (result: BindResult): string => result.responseHeaders?.[TOKEN_HEADER] ?? '';

describe('DevicesService (binding, registration, revocation) against the real database', () => {
  let t: TestApp;
  let devices: DevicesService;
  let n = 0;
  const newKey = (deviceLimit: number, orgId = 'org_a'): CappedKey => ({
    keyId: `key_${++n}`,
    orgId,
    deviceLimit,
  });

  beforeAll(async () => {
    const dir = makeTempDir();
    t = await startTestApp(
      writeTestLicense(dir, { caps: { max_devices: 100, max_devices_per_key: 4 } }),
      dir,
    );
    devices = t.app.get(DevicesService);
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a device id of 16 to 64 characters', async () => {
    const key = newKey(2);
    expect(await codeOf(devices.bind(key, { headers: {} }))).toBe('401 device_binding_required');
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(deviceId('short', 15)) }))).toBe(
      '422 invalid_device_id',
    );
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(deviceId('long', 65)) }))).toBe(
      '422 invalid_device_id',
    );
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders('has spaces in the device id') }))).toBe(
      '422 invalid_device_id',
    );
    expect(tokenOf(await devices.bind(key, { headers: deviceHeaders(deviceId('min', 16)) }))).toMatch(
      /^dbt_/,
    );
    expect(tokenOf(await devices.bind(key, { headers: deviceHeaders(deviceId('max', 64)) }))).toMatch(
      /^dbt_/,
    );
  });

  it('binds a new device once, then demands the token it handed out', async () => {
    const key = newKey(2);
    const id = deviceId('laptop');
    const first = await devices.bind(key, { headers: deviceHeaders(id) });
    expect(first.deviceId).toBe(id);
    const token = tokenOf(first);
    expect(token).toMatch(/^dbt_[A-Za-z0-9_-]{43}$/);

    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(id) }))).toBe(
      '401 device_binding_token_required',
    );
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(id, { token: `${token}x` }) }))).toBe(
      '403 invalid_device_binding_token',
    );
    const replay = await devices.bind(key, { headers: deviceHeaders(id, { token }) });
    expect(replay).toEqual({ deviceId: id });
    // Upgrades change the version headers, not the fingerprint.
    const upgraded = deviceHeaders(id, { token, platformVersion: '6.9.1', sdkVersion: '2.0.0' });
    expect(await devices.bind(key, { headers: upgraded })).toEqual({ deviceId: id });
    const listed = (await devices.list('org_a')).find((d) => d.deviceId === id);
    expect(listed).toMatchObject({ platformVersion: '6.9.1', sdkVersion: '2.0.0', platform: 'linux' });
  });

  it('refuses a clone: the same device id with another fingerprint, even with the token', async () => {
    const key = newKey(2);
    const id = deviceId('clone');
    const token = tokenOf(await devices.bind(key, { headers: deviceHeaders(id, { host: 'host-a' }) }));
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(id, { host: 'host-b', token }) }))).toBe(
      '403 device_identity_mismatch',
    );
    expect(
      await codeOf(
        devices.bind(key, { headers: deviceHeaders(id, { host: 'host-a', platform: 'darwin', token }) }),
      ),
    ).toBe('403 device_identity_mismatch');
  });

  it('refuses a binding token from another key', async () => {
    const keyA = newKey(2);
    const keyB = newKey(2);
    const id = deviceId('shared');
    const tokenA = tokenOf(await devices.bind(keyA, { headers: deviceHeaders(id) }));
    expect(await codeOf(devices.bind(keyB, { headers: deviceHeaders(id, { token: tokenA }) }))).toBe(
      '403 invalid_device_binding_token',
    );
    const tokenB = tokenOf(await devices.bind(keyB, { headers: deviceHeaders(id) }));
    expect(await codeOf(devices.bind(keyB, { headers: deviceHeaders(id, { token: tokenA }) }))).toBe(
      '403 invalid_device_binding_token',
    );
    expect(await devices.bind(keyB, { headers: deviceHeaders(id, { token: tokenB }) })).toEqual({
      deviceId: id,
    });
  });

  it('stops at the key device_limit with 402 device_limit_reached', async () => {
    const key = newKey(2);
    await devices.bind(key, { headers: deviceHeaders(deviceId('lim-1')) });
    await devices.bind(key, { headers: deviceHeaders(deviceId('lim-2')) });
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(deviceId('lim-3')) }))).toBe(
      '402 device_limit_reached',
    );
  });

  it('caps a key at the license max_devices_per_key even if its device_limit is higher', async () => {
    const key = newKey(50);
    for (let i = 0; i < 4; i++) await devices.bind(key, { headers: deviceHeaders(deviceId(`pk-${i}`)) });
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(deviceId('pk-4')) }))).toBe(
      '402 device_limit_reached',
    );
  });

  it('frees the slot and kills the token at once on revocation', async () => {
    const key = newKey(1);
    const id = deviceId('revoked');
    const token = tokenOf(await devices.bind(key, { headers: deviceHeaders(id) }));
    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(deviceId('other')) }))).toBe(
      '402 device_limit_reached',
    );
    const record = (await devices.list('org_a')).find((d) => d.keyId === key.keyId);
    expect(record?.deviceId).toBe(id);

    expect(await codeOf(devices.revoke({ orgId: 'org_b', isAdmin: true }, record!.id))).toBe(
      '404 device_not_found',
    );
    expect(
      await codeOf(devices.revoke({ orgId: 'org_a', keyId: 'key_someone_else', isAdmin: false }, record!.id)),
    ).toBe('403 insufficient_role');
    const revoked = await devices.revoke({ orgId: 'org_a', keyId: key.keyId, isAdmin: false }, record!.id);
    expect(revoked.registrationId).toBe(record!.id);
    expect(await codeOf(devices.revoke({ orgId: 'org_a', isAdmin: true }, record!.id))).toBe(
      '404 device_not_found',
    );

    expect(await codeOf(devices.bind(key, { headers: deviceHeaders(id, { token }) }))).toBe(
      '403 invalid_device_binding_token',
    );
    const other = await devices.bind(key, { headers: deviceHeaders(deviceId('other')) });
    expect(tokenOf(other)).toMatch(/^dbt_/);
    expect((await devices.list('org_a')).some((d) => d.id === record!.id)).toBe(false);
  });

  it('never binds more devices than the limit under concurrent first requests', async () => {
    const key = newKey(3);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        codeOf(devices.bind(key, { headers: deviceHeaders(deviceId(`race-${i}`)) })),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === '402 device_limit_reached')).toHaveLength(7);
    expect((await devices.list('org_a')).filter((d) => d.keyId === key.keyId)).toHaveLength(3);

    // The same machine racing itself is bound once; the losers must replay the winner's token.
    const same = newKey(3);
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        codeOf(devices.bind(same, { headers: deviceHeaders(deviceId('twin')) })),
      ),
    );
    expect(racing.filter((o) => o === 'ok')).toHaveLength(1);
    expect(racing.filter((o) => o === '401 device_binding_token_required')).toHaveLength(4);
  });

  it('registers a device with an EdDSA license token that the published key verifies', async () => {
    const key = newKey(2, 'org_reg');
    const id = deviceId('registered');
    const bound = await devices.bind(key, { headers: deviceHeaders(id) });
    const registration = await devices.register(
      { orgId: key.orgId, keyId: key.keyId, isAdmin: false },
      deviceHeaders(id, { token: tokenOf(bound) }),
    );
    expect(registration.deviceId).toBe(id);
    const [header, claims, sig] = registration.licenseToken.split('.');
    const published = devices.licenseKey();
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      typ: 'JWT',
      kid: published.kid,
    });
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString());
    expect(payload).toMatchObject({
      device_id: id,
      key_id: key.keyId,
      org_id: 'org_reg',
      jti: registration.registrationId,
      entitlements: expect.arrayContaining(['mcp', 'simulation']),
    });
    expect(payload.exp).toBe(Math.floor(registration.expiresAt.getTime() / 1000));
    expect(payload.exp).toBeGreaterThan(payload.iat);
    const ok = verify(
      null,
      Buffer.from(`${header}.${claims}`),
      createPublicKey(published.publicKeyPem),
      Buffer.from(sig, 'base64url'),
    );
    expect(ok).toBe(true);
    const [listed] = await devices.list('org_reg');
    expect(listed).toMatchObject({ id: registration.registrationId, deviceId: id, keyId: key.keyId });
    expect(listed.registeredAt).not.toBeNull();
  });

  it('registers devices of uncapped keys too, and refuses a session without a key', async () => {
    const id = deviceId('uncapped');
    const caller = { orgId: 'org_unc', keyId: 'key_uncapped', isAdmin: false };
    const first = await devices.register(caller, deviceHeaders(id));
    const again = await devices.register(caller, deviceHeaders(id));
    expect(again.registrationId).toBe(first.registrationId);
    expect(await codeOf(devices.register(caller, deviceHeaders(id, { host: 'elsewhere' })))).toBe(
      '403 device_identity_mismatch',
    );
    expect(await codeOf(devices.register(caller, {}))).toBe('422 invalid_device_id');
    expect(await codeOf(devices.register({ orgId: 'org_unc', isAdmin: true }, deviceHeaders(id)))).toBe(
      '403 forbidden',
    );
  });

  it('stores binding tokens only hashed', async () => {
    const token = tokenOf(
      await devices.bind(newKey(1), { headers: deviceHeaders(deviceId('secret-check')) }),
    );
    const secretPart = token.slice(4);
    expect(filesContaining(t.dataDir, secretPart)).toEqual([]);
  });
});

describe('the appliance device cap (license max_devices)', () => {
  it('counts every bound and registered machine of the appliance, across keys and organizations', async () => {
    const dir = makeTempDir();
    const t = await startTestApp(
      writeTestLicense(dir, { caps: { max_devices: 3, max_devices_per_key: 3 } }),
      dir,
    );
    try {
      const devices = t.app.get(DevicesService);
      await devices.bind(
        { keyId: 'k1', orgId: 'o1', deviceLimit: 3 },
        { headers: deviceHeaders(deviceId('m1')) },
      );
      await devices.register({ orgId: 'o2', keyId: 'k2', isAdmin: false }, deviceHeaders(deviceId('m2')));
      // The same machine under another key takes no second appliance slot.
      await devices.bind(
        { keyId: 'k3', orgId: 'o1', deviceLimit: 3 },
        { headers: deviceHeaders(deviceId('m1')) },
      );
      await devices.bind(
        { keyId: 'k3', orgId: 'o1', deviceLimit: 3 },
        { headers: deviceHeaders(deviceId('m3')) },
      );
      expect(
        await codeOf(
          devices.bind(
            { keyId: 'k4', orgId: 'o3', deviceLimit: 3 },
            { headers: deviceHeaders(deviceId('m4')) },
          ),
        ),
      ).toBe('402 device_limit_reached');
      expect(
        await codeOf(
          devices.register({ orgId: 'o3', keyId: 'k5', isAdmin: false }, deviceHeaders(deviceId('m5'))),
        ),
      ).toBe('402 device_limit_reached');
      const [m2] = await devices.list('o2');
      await devices.revoke({ orgId: 'o2', isAdmin: true }, m2.id);
      await devices.bind(
        { keyId: 'k4', orgId: 'o3', deviceLimit: 3 },
        { headers: deviceHeaders(deviceId('m4')) },
      );
    } finally {
      await t.close();
    }
  });
});
