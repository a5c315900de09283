import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { decisionctl, expectJsonOfContract, freshHome } from '../support/decisionctl';
import { filesContaining } from '../support/grep-dir';
import { SecretService, startSecretService } from '../support/secret-service';
import { startTestApp, TestApp } from '../support/test-app';

const secretOf = (key: string): string => key.split('_').slice(2).join('_');
const licenseFile = (env: Record<string, string>) =>
  join(env.XDG_DATA_HOME, 'decisionctl', 'device-licenses.json');

describe('decisionctl login and logout', () => {
  let t: TestApp;
  let owner: string;
  const homes: string[] = [];
  const home = (deviceId: string) => {
    const h = freshHome();
    homes.push(h.root);
    return { root: h.root, env: { ...h.env, SERVICE_BASE_URL: t.baseUrl, SERVICE_DEVICE_ID: deviceId } };
  };
  /** A key capped to `limit` devices, so every registration shows in the device list. */
  const cappedKey = async (limit: number, by = owner): Promise<{ id: string; raw: string }> => {
    const res = await t.request('POST', '/v1/api-keys', {
      token: by,
      body: { label: `capped-${limit}`, device_limit: limit },
    });
    expect(res.status).toBe(201);
    return { id: res.body.id, raw: res.body.raw_key };
  };
  const devicesOf = async (keyId: string, by = owner) =>
    ((await t.request('GET', '/v1/device/list', { token: by })).body.devices as { key_id: string }[]).filter(
      (d) => d.key_id === keyId,
    );

  beforeAll(async () => {
    t = await startTestApp();
    owner = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    for (const root of homes) rmSync(root, { recursive: true, force: true });
  });

  describe('against a real Secret Service', () => {
    let secrets: SecretService;
    let h: ReturnType<typeof home>;

    beforeAll(async () => {
      h = home('cli-login-device-0001');
      secrets = await startSecretService(h.env);
    });

    afterAll(() => secrets?.stop());

    it('login registers the device, keeps a verified 0600 license and stores the key; logout undoes both', async () => {
      const env = { ...h.env, ...secrets.env };
      const key = await cappedKey(1);
      const login = await decisionctl(['login', '-', '--format', 'json'], env, { input: key.raw });
      expect(login.stderr).toContain('device cli-login-device-0001 registered, key stored');
      expect(login.status).toBe(0);
      const registration = expectJsonOfContract(login.stdout, 'POST /v1/device/register', 201) as any;
      expect(registration.device_id).toBe('cli-login-device-0001');
      expect(await devicesOf(key.id)).toEqual([
        expect.objectContaining({ registration_id: registration.registration_id }),
      ]);

      expect(statSync(licenseFile(env)).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(readFileSync(licenseFile(env), 'utf8'));
      expect(kept.licenses[t.baseUrl]).toMatchObject({
        registration_id: registration.registration_id,
        license_token: registration.license_token,
      });
      expect(filesContaining(h.root, secretOf(key.raw))).toEqual([]);

      const { SERVICE_BASE_URL: _unused, ...withoutUrl } = env;
      const me = await decisionctl(['whoami', '--format', 'json'], {
        ...withoutUrl,
        SERVICE_BASE_URL: t.baseUrl,
      });
      expect(me.status).toBe(0);

      const logout = await decisionctl(['logout', '--format', 'json'], env);
      expect(logout.status).toBe(0);
      expect(JSON.parse(logout.stdout)).toEqual({
        base_url: t.baseUrl,
        license_removed: true,
        key_removed: true,
      });
      expect(JSON.parse(readFileSync(licenseFile(env), 'utf8')).licenses).toEqual({});
      expect((await decisionctl(['whoami'], env)).status).toBe(4);
    });

    it('a device over the key limit: exit 77 and the key is not left in the store', async () => {
      const key = await cappedKey(1);
      const first = home('cli-limit-device-0001');
      const second = home('cli-limit-device-0002');
      const firstLogin = await decisionctl(['login'], { ...first.env, SERVICE_API_KEY: key.raw });
      expect(firstLogin.status).toBe(0);
      const refused = await decisionctl(['login', key.raw], { ...second.env, ...secrets.env });
      expect(refused.stderr).toContain('device_limit_reached');
      expect(refused.status).toBe(77);
      const shown = await decisionctl(['config', 'show', '--format', 'json'], {
        ...second.env,
        ...secrets.env,
      });
      expect(JSON.parse(shown.stdout)).toMatchObject({ key_from: 'none', key_stored_by: null });
      expect(await devicesOf(key.id)).toHaveLength(1);
    });

    // Last: it leaves a set-key key in the keyring this describe shares.
    it('login with no argument and no terminal uses the key from config set-key; logout leaves that key', async () => {
      const h2 = home('cli-setkey-device-0001');
      const env = { ...h2.env, ...secrets.env };
      // An organization of its own: its devices do not count against the one the other tests share.
      const org = (await signupAccount(t)).apiKey;
      const a = await cappedKey(1, org);
      const b = await cappedKey(1, org);
      expect((await decisionctl(['config', 'set-key', '-'], env, { input: a.raw })).status).toBe(0);

      const login = await decisionctl(['login', '--format', 'json'], env, { input: '' });
      expect(login.stderr).toContain('using the key stored in the credential store');
      expect(login.status).toBe(0);
      expect(await devicesOf(a.id, org)).toHaveLength(1);
      const afterLogin = await decisionctl(['config', 'show', '--format', 'json'], env);
      expect(JSON.parse(afterLogin.stdout)).toMatchObject({
        key_prefix: a.raw.slice(0, 12),
        key_stored_by: 'set-key',
      });
      const logout = await decisionctl(['logout', '--format', 'json'], env);
      expect(JSON.parse(logout.stdout)).toMatchObject({ license_removed: true, key_removed: false });

      // set-key A, login B, logout: B goes, A is back.
      expect((await decisionctl(['login', '-'], env, { input: b.raw })).status).toBe(0);
      const withB = await decisionctl(['config', 'show', '--format', 'json'], env);
      expect(JSON.parse(withB.stdout)).toMatchObject({
        key_prefix: b.raw.slice(0, 12),
        key_stored_by: 'login',
      });
      expect((await decisionctl(['logout'], env)).status).toBe(0);
      const backToA = await decisionctl(['config', 'show', '--format', 'json'], env);
      expect(JSON.parse(backToA.stdout)).toMatchObject({
        key_from: 'credential store',
        key_prefix: a.raw.slice(0, 12),
        key_stored_by: 'set-key',
      });
      expect((await decisionctl(['whoami'], env)).status).toBe(0);
      expect(filesContaining(h2.root, secretOf(a.raw))).toEqual([]);
      expect(filesContaining(h2.root, secretOf(b.raw))).toEqual([]);
    });
  });

  describe('with no Secret Service', () => {
    it('login with a key to store fails closed (78) before registering anything', async () => {
      const key = await cappedKey(1);
      const h = home('cli-nostore-device-01');
      const result = await decisionctl(['login', key.raw], h.env);
      expect(result.status).toBe(78);
      expect(result.stderr).toContain('SERVICE_API_KEY');
      expect(await devicesOf(key.id)).toEqual([]);
      expect(() => statSync(licenseFile(h.env))).toThrow();
      expect(filesContaining(h.root, secretOf(key.raw))).toEqual([]);
    });

    it('login with SERVICE_API_KEY registers without storing the key; logout removes only the license', async () => {
      const key = await cappedKey(1);
      const h = home('cli-envkey-device-001');
      const env = { ...h.env, SERVICE_API_KEY: key.raw };
      const login = await decisionctl(['login'], env);
      expect(login.stderr).toContain('using the key from SERVICE_API_KEY; it is not stored');
      expect(login.status).toBe(0);
      expect(login.stdout).toMatch(/^registration_id\s+\S+/m);
      expect(await devicesOf(key.id)).toHaveLength(1);
      expect(filesContaining(h.root, secretOf(key.raw))).toEqual([]);

      const logout = await decisionctl(['logout', '--format', 'json'], env);
      expect(JSON.parse(logout.stdout)).toEqual({
        base_url: t.baseUrl,
        license_removed: true,
        key_removed: false,
      });
    });
  });
});
