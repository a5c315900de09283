import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { signupAccount } from '../factories/accounts';
import { runBuiltCli } from '../support/decisionctl';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

describe('decisionctl privacy-report', () => {
  let t: TestApp;
  let dir: string;
  let env: Record<string, string>;

  /** Run asynchronously: the daemon answering it lives in this process. */
  const decisionctl = (...args: string[]) =>
    runBuiltCli('decisionctl.js', ['privacy-report', ...args], env, { cwd: dir });

  beforeAll(async () => {
    dir = makeTempDir('ds-report-cli-');
    t = await startTestApp();
    env = { SERVICE_API_KEY: (await signupAccount(t)).apiKey, SERVICE_BASE_URL: t.baseUrl };
  });

  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fetches a fresh page and verifies it offline; a changed byte fails', async () => {
    const fetched = await decisionctl('fetch', '--format', 'html', '--out', 'fresh.html');
    expect(fetched.stderr).toBe('');
    expect(fetched.status).toBe(0);
    const page = readFileSync(join(dir, 'fresh.html'), 'utf8');
    expect(page).toMatch(/^<!DOCTYPE html>/);

    const ok = await decisionctl('verify', 'fresh.html');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^OK fresh\.html: signature valid \(key [0-9a-f]{16}\)/);

    writeFileSync(join(dir, 'changed.html'), page.replace('"cloud_free":true', '"cloud_free":false'));
    const changed = await decisionctl('verify', 'changed.html');
    expect(changed.status).toBe(1);
    expect(changed.stderr).toContain('FAILED changed.html: the signature does not match');
  });

  it('lists and downloads the history, and names the report removed from it', async () => {
    for (let i = 0; i < 3; i++) expect((await decisionctl('fetch', '--out', `r${i}.json`)).status).toBe(0);
    const listed = await decisionctl('list', '--format', 'json');
    expect(listed.status).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { reports: { id: string }[] }).reports.map((r) => r.id);
    expect(ids).toEqual(['prr_000000000004', 'prr_000000000003', 'prr_000000000002', 'prr_000000000001']);
    writeFileSync(
      join(dir, 'key.json'),
      (await t.request('GET', '/v1/admin/privacy-report/public-key', { token: env.SERVICE_API_KEY })).text,
    );

    expect((await decisionctl('fetch', '--all', '--out', 'before')).status).toBe(0);
    expect(readdirSync(join(dir, 'before')).sort()).toEqual(ids.map((id) => `${id}.json`).reverse());
    const whole = await decisionctl('verify', '--public-key', 'key.json', 'before');
    expect(whole.stderr).toBe('');
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain(
      'OK chain: 4 report(s), numbers 1 to 4, starting with the first report of the appliance, none missing',
    );

    await t.app
      .get(MikroORM)
      .em.fork()
      .getConnection()
      .execute('delete from privacy_reports where sequence = 3');
    expect((await decisionctl('fetch', '--all', '--format', 'html', '--out', 'after')).status).toBe(0);
    const gap = await decisionctl('verify', '--public-key', 'key.json', 'after');
    expect(gap.status).toBe(1);
    expect(gap.stderr).toContain(
      'FAILED chain: gap: report 3 is missing between report 2 (prr_000000000002, ',
    );
    expect(gap.stderr).toMatch(
      /and report 4 \(prr_000000000004, [^)]*after\/prr_000000000004\.html\); the report before prr_000000000004 had signed-bytes SHA-256 [0-9a-f]{64}/,
    );
  });
});
