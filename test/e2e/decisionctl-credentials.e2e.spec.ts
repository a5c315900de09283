import { readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { decisionctl, freshHome } from '../support/decisionctl';
import { filesContaining } from '../support/grep-dir';
import { secretServiceAvailable, SecretService, startSecretService } from '../support/secret-service';
import { startTestApp, TestApp } from '../support/test-app';

/** The part of `dsk_live_<secret>` that must never reach a file. */
const secretOf = (key: string): string => key.split('_').slice(2).join('_');

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('decisionctl key resolution and credential store', () => {
  let t: TestApp;
  let apiKey: string;
  const homes: string[] = [];
  const home = () => {
    const h = freshHome();
    homes.push(h.root);
    return h;
  };

  beforeAll(async () => {
    t = await startTestApp();
    apiKey = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    for (const root of homes) rmSync(root, { recursive: true, force: true });
  });

  describe('with no Secret Service on the machine', () => {
    it('config set-key fails closed with exit 78, and the key is nowhere under HOME or the XDG folders', async () => {
      const h = home();
      const positional = await decisionctl(['config', 'set-key', apiKey, t.baseUrl], h.env);
      expect(positional.status).toBe(78);
      expect(positional.stderr).toContain('visible to other users in `ps`');
      expect(positional.stderr).toContain('no secure credential store');
      expect(positional.stderr).toContain('SERVICE_API_KEY');
      expect(positional.stderr).toContain('gnome-keyring-daemon --unlock --components=secrets');
      expect(positional.stdout).toBe('');

      const fromStdin = await decisionctl(['config', 'set-key', '-', t.baseUrl], h.env, {
        input: `${apiKey}\n`,
      });
      expect(fromStdin.status).toBe(78);
      expect(fromStdin.stderr).not.toContain('visible to other users');

      expect(filesContaining(h.root, secretOf(apiKey))).toEqual([]);
      expect(() => statSync(join(h.env.XDG_CONFIG_HOME, 'decisionctl', 'config.json'))).toThrow();
    });

    it('a command without SERVICE_API_KEY fails closed (78); with it, the store is never asked', async () => {
      const h = home();
      const env = { ...h.env, SERVICE_BASE_URL: t.baseUrl };
      const noStore = await decisionctl(['whoami'], env);
      expect(noStore.status).toBe(78);
      expect(noStore.stderr).toContain('SERVICE_API_KEY');

      const withEnv = await decisionctl(['whoami', '--format', 'json'], { ...env, SERVICE_API_KEY: apiKey });
      expect(withEnv.stderr).toBe('');
      expect(withEnv.status).toBe(0);
      expect(JSON.parse(withEnv.stdout)).toEqual(
        await (
          await t.request('GET', '/v1/me', { token: apiKey })
        ).body,
      );
    });

    it('config show still shows the configuration, and says there is no secure store', async () => {
      const h = home();
      const shown = await decisionctl(['config', 'show', '--format', 'json'], {
        ...h.env,
        SERVICE_BASE_URL: t.baseUrl,
      });
      expect(shown.status).toBe(0);
      expect(JSON.parse(shown.stdout)).toEqual({
        config_file: join(h.env.XDG_CONFIG_HOME, 'decisionctl', 'config.json'),
        base_url: t.baseUrl,
        base_url_from: 'SERVICE_BASE_URL',
        key_from: 'none (no secure credential store)',
        key_prefix: null,
        key_stored_by: null,
      });
    });
  });

  describe('against a real Secret Service (gnome-keyring-daemon on a private session bus)', () => {
    let secrets: SecretService;
    let h: ReturnType<typeof freshHome>;

    beforeAll(async () => {
      if (!secretServiceAvailable())
        throw new Error(
          'gnome-keyring-daemon and dbus-run-session are needed: apt-get install gnome-keyring dbus',
        );
      h = home();
      secrets = await startSecretService(h.env);
    });

    afterAll(() => secrets?.stop());

    it('config set-key stores the key there; later commands use it; no file holds it', async () => {
      const env = { ...h.env, ...secrets.env };
      const stored = await decisionctl(['config', 'set-key', '-', t.baseUrl], env, { input: apiKey });
      expect(stored.stderr).toContain(`stored the key ${apiKey.slice(0, 12)}`);
      expect(stored.status).toBe(0);

      const configFile = join(h.env.XDG_CONFIG_HOME, 'decisionctl', 'config.json');
      expect(statSync(configFile).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
        base_url: t.baseUrl,
        key_stored_by: 'set-key',
      });

      const me = await decisionctl(['whoami', '--format', 'json'], env);
      expect(me.status).toBe(0);
      expect(JSON.parse(me.stdout)).toEqual((await t.request('GET', '/v1/me', { token: apiKey })).body);

      const shown = await decisionctl(['config', 'show', '--format', 'json'], env);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        base_url: t.baseUrl,
        base_url_from: configFile,
        key_from: 'credential store',
        key_prefix: apiKey.slice(0, 12),
      });
      expect(shown.stdout).not.toContain(secretOf(apiKey));

      expect(filesContaining(h.root, secretOf(apiKey))).toEqual([]);
    });

    it('with nothing stored for a base URL, a command exits 4 and says where a key can come from', async () => {
      const env = { ...h.env, ...secrets.env, SERVICE_BASE_URL: 'http://127.0.0.1:9' };
      const none = await decisionctl(['whoami'], env);
      expect(none.status).toBe(4);
      expect(none.stderr).toContain('no API key for http://127.0.0.1:9');
      expect(none.stderr).toContain('decisionctl login');
    });
  });

  describe('a Secret Service that is locked or does not answer', () => {
    let secrets: SecretService;
    let h: ReturnType<typeof freshHome>;
    let env: Record<string, string>;

    beforeAll(async () => {
      h = home();
      secrets = await startSecretService(h.env);
      env = { ...h.env, ...secrets.env, SERVICE_BASE_URL: t.baseUrl };
      const stored = await decisionctl(['config', 'set-key', '-', t.baseUrl], env, { input: apiKey });
      expect(stored.stderr).toContain('stored the key');
      expect(stored.status).toBe(0);
    });

    afterAll(() => secrets?.stop());

    it('a locked keyring: reading and storing fail closed (78); nothing falls back to a file', async () => {
      secrets.lock();
      const read = await decisionctl(['whoami'], env);
      expect(read.stderr).toContain('no secure credential store');
      expect(read.status).toBe(78);

      const store = await decisionctl(['config', 'set-key', '-', t.baseUrl], env, { input: apiKey });
      expect(store.stderr).toContain('no secure credential store');
      expect(store.status).toBe(78);
      expect(filesContaining(h.root, secretOf(apiKey))).toEqual([]);
    });

    it('a keyring daemon that never answers: the CLI fails closed (78) instead of hanging', async () => {
      secrets.freeze();
      try {
        const started = Date.now();
        const read = await decisionctl(['whoami'], env);
        expect(read.status).toBe(78);
        expect(read.stderr).toContain('no secure credential store');
        expect(read.stderr).toContain('SERVICE_API_KEY');
        // Not a speed goal: a hang would run into the bus's 25 s reply timeout or never end. The keyring
        // library gives up after about 2.5 s; the CLI's own 10 s limit is the backstop behind it.
        expect(Date.now() - started).toBeLessThan(20_000);

        const store = await decisionctl(['config', 'set-key', '-', t.baseUrl], env, { input: apiKey });
        expect(store.status).toBe(78);
      } finally {
        secrets.thaw();
      }
      expect(filesContaining(h.root, secretOf(apiKey))).toEqual([]);
    });
  });

  describe('bad input', () => {
    it('a malformed config file: exit 78 naming the file', async () => {
      const h = home();
      mkdirSync(join(h.env.XDG_CONFIG_HOME, 'decisionctl'), { recursive: true });
      writeFileSync(join(h.env.XDG_CONFIG_HOME, 'decisionctl', 'config.json'), '{"base_url": ');
      const result = await decisionctl(['whoami'], { ...h.env, SERVICE_API_KEY: apiKey });
      expect(result.status).toBe(78);
      expect(result.stderr).toContain('config.json: is not valid JSON');
    });

    it('a key of the wrong shape: exit 2 as an argument, 78 from SERVICE_API_KEY; never sent', async () => {
      const h = home();
      const argument = await decisionctl(['config', 'set-key', 'not-a-key', t.baseUrl], h.env);
      expect(argument.status).toBe(2);
      expect(argument.stderr).toContain('does not have the shape of an API key');
      const fromEnv = await decisionctl(['whoami'], {
        ...h.env,
        SERVICE_API_KEY: 'sk-wrong',
        SERVICE_BASE_URL: t.baseUrl,
      });
      expect(fromEnv.status).toBe(78);
      expect(fromEnv.stderr).toContain('the key from SERVICE_API_KEY does not have the shape');
    });

    it('a revoked key: exit 4', async () => {
      const h = home();
      const second = await t.request('POST', '/v1/api-keys', { token: apiKey, body: { label: 'revoked' } });
      expect((await t.request('DELETE', `/v1/api-keys/${second.body.id}`, { token: apiKey })).status).toBe(
        200,
      );
      const result = await decisionctl(['whoami'], {
        ...h.env,
        SERVICE_API_KEY: second.body.raw_key,
        SERVICE_BASE_URL: t.baseUrl,
      });
      expect(result.status).toBe(4);
      expect(result.stderr).toContain('invalid_api_key');
    });

    it('a daemon that is down: exit 69', async () => {
      const h = home();
      const result = await decisionctl(['whoami'], {
        ...h.env,
        SERVICE_API_KEY: apiKey,
        SERVICE_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      });
      expect(result.status).toBe(69);
      expect(result.stderr).toContain('is decisiond running');
    });

    it('a usage mistake: exit 2', async () => {
      const h = home();
      const result = await decisionctl(['whoami', '--format', 'yaml'], h.env);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('Allowed choices are table, json');
    });
  });
});
