import { spawn } from 'node:child_process';
import { makeTempDir, removeTestData, startTestApp, testStoreEnv } from '../support/test-app';
import { DAEMON_ENTRY, REPO_ROOT } from '../support/daemon-process';
import { login, uniqueEmail } from '../factories/accounts';

const CLI = DAEMON_ENTRY.replace(/main\.js$/, 'cli/provision.js');

function runProvision(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(stdin ?? '');
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Each CLI run starts Node, Nest and the migrations: slow on a loaded machine. */
jest.setTimeout(180_000);

describe('operator provisioning CLI', () => {
  it('creates the operator org offline with sign-up off, prints the key once, and refuses a second time', async () => {
    const dataDir = makeTempDir();
    const env = {
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SIGNUP_ENABLED: 'false',
      ...(await testStoreEnv(dataDir)),
    };
    const email = uniqueEmail('operator');
    const first = await runProvision(
      ['--org', 'Acme Ops', '--email', email, '--name', 'Olga Operator', '--password-stdin'],
      env,
      'operator passphrase 1\n',
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const rawKey = /^(dsk_live_[A-Za-z0-9_-]{43})$/m.exec(first.stdout)?.[1];
    expect(rawKey).toBeDefined();

    const again = await runProvision(['--org', 'Second', '--email', uniqueEmail(), '--name', 'X'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('operator organization already exists');
    expect(again.stdout).toBe('');

    const t = await startTestApp(env, dataDir);
    try {
      const me = await t.request('GET', '/v1/me', { token: rawKey });
      expect(me.status).toBe(200);
      expect(me.body.organization).toMatchObject({ name: 'Acme Ops', is_operator: true });
      expect(me.body.key.role).toBe('owner');
      const session = await login(t, email, 'operator passphrase 1');
      expect((await t.request('GET', '/v1/me', { token: session })).body.user).toMatchObject({
        email,
        role: 'owner',
      });
      const audit = await t.request('GET', '/v1/audit-log', { token: rawKey });
      expect(audit.body.events.map((e: { event: string }) => e.event)).toContain('provisioned');
      const signup = await t.request('POST', '/auth/signup', {
        body: { email: uniqueEmail(), password: 'long enough password', name: 'N' },
      });
      expect(signup.status).toBe(403);
    } finally {
      await t.close();
    }
  });

  it('refuses when sign-up already created the operator org, and rejects bad arguments', async () => {
    const dataDir = makeTempDir();
    const t = await startTestApp({}, dataDir);
    const res = await t.request('POST', '/auth/signup', {
      body: { email: uniqueEmail(), password: 'long enough password', name: 'First' },
    });
    expect(res.status).toBe(201);
    await t.close(true);

    const refused = await runProvision(['--org', 'Late', '--email', uniqueEmail(), '--name', 'L'], {
      SERVICE_DATA_DIR: dataDir,
      ...(await testStoreEnv(dataDir)),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('operator organization already exists');
    await removeTestData(dataDir);

    const fresh = { SERVICE_DATA_DIR: makeTempDir() };
    expect((await runProvision(['--org', 'A', '--email', 'nope', '--name', 'N'], fresh)).code).toBe(64);
    const missing = await runProvision(['--org', 'A', '--name', 'N'], fresh);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("required option '--email <email>' not specified");
    const unknown = await runProvision(
      ['--org', 'A', '--email', uniqueEmail(), '--name', 'N', '--orgs'],
      fresh,
    );
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain("unknown option '--orgs'");
    expect((await runProvision(['--help'], fresh)).code).toBe(0);
    const shortPassword = await runProvision(
      ['--org', 'A', '--email', uniqueEmail(), '--name', 'N', '--password-stdin'],
      fresh,
      'short\n',
    );
    expect(shortPassword.code).toBe(64);
  });
});
