import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EgressGuardService } from '../../src/modules/egress/egress-guard.service';
import { extractEmbeddedReport } from '../../src/modules/privacy/report-embedding';
import { verifyReportText } from '../../src/modules/privacy/report-signature';
import { signupAccount } from '../factories/accounts';
import { REPO_ROOT } from '../support/daemon-process';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

const HOSTILE = '<img src=x onerror=alert(1)>.example';

/** The shell block of docs/privacy-report.md marked as the openssl recipe: the test runs what auditors read. */
function docsRecipe(): string {
  const docs = readFileSync(join(REPO_ROOT, 'docs', 'privacy-report.md'), 'utf8');
  const match = /<!-- openssl-recipe[^>]*-->\n+```sh\n([\s\S]*?)\n```/.exec(docs);
  if (!match) throw new Error('docs/privacy-report.md has no openssl-recipe block');
  return match[1];
}

const unescapeHtml = (text: string): string =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function runRecipe(dir: string): { status: number | null; output: string } {
  const run = spawnSync('bash', ['-c', `set -eo pipefail\n${docsRecipe()}`], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('the privacy report page', () => {
  let t: TestApp;
  let receiver: Receiver;
  let operator: string;
  let dir: string;

  beforeAll(async () => {
    dir = makeTempDir('ds-report-page-');
    receiver = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
    operator = (await signupAccount(t)).apiKey;
    await t.request('POST', '/v1/webhooks/test', { token: operator, body: { callback_url: receiver.url } });
    const guard = t.app.get(EgressGuardService);
    for (const host of [HOSTILE, 'x\\u003c/script>.example']) {
      await expect(
        guard.checkDestination(host, 5432, { purpose: 'connector', orgId: undefined }),
      ).rejects.toThrow();
    }
  });

  afterAll(async () => {
    await t.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is served for text/html, kept in the history, and embeds the signed JSON exactly', async () => {
    const key = (await t.request('GET', '/v1/admin/privacy-report/public-key', { token: operator })).body;
    const before = (await t.request('GET', '/v1/admin/privacy-reports', { token: operator })).body.reports
      .length;
    const res = await t.request('GET', '/v1/admin/privacy-report', {
      token: operator,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    );
    const page = res.text;
    expect(page).toContain('Verdict: cloud-free');
    expect(page).not.toContain('<img');
    expect(page).toContain('<td>&lt;img src=x onerror=alert(1)&gt;.example</td>');

    const embedded = extractEmbeddedReport(page) as string;
    expect(verifyReportText(embedded, key.public_key_pem).ok).toBe(true);
    const listed = (await t.request('GET', '/v1/admin/privacy-reports', { token: operator })).body.reports;
    expect(listed).toHaveLength(before + 1);
    const report = JSON.parse(embedded);
    expect(listed[0].id).toBe(report.report_id);
    const kept = await t.request('GET', `/v1/admin/privacy-reports/${report.report_id}`, { token: operator });
    expect(kept.text).toBe(embedded);
    expect(report.egress_24h.destinations.map((d: { host: string }) => d.host)).toContain(HOSTILE);

    const keptPage = await t.request('GET', `/v1/admin/privacy-reports/${report.report_id}?format=html`, {
      token: operator,
    });
    expect(keptPage.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(extractEmbeddedReport(keptPage.text)).toBe(embedded);
  });

  it('refuses an unknown format', async () => {
    for (const path of [
      '/v1/admin/privacy-report?format=pdf',
      '/v1/admin/privacy-reports/prr_000000000001?format=xml',
    ]) {
      const res = await t.request('GET', path, { token: operator });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('verifies with the openssl commands of the docs alone, and fails once a byte changes', async () => {
    const res = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    const printed = /<pre id="openssl-recipe">([\s\S]*?)<\/pre>/.exec(res.text)?.[1] ?? '';
    expect(unescapeHtml(printed)).toBe(docsRecipe());

    writeFileSync(join(dir, 'report.html'), res.text);
    const ok = runRecipe(dir);
    expect(ok.output).toContain('Signature Verified Successfully');
    expect(ok.status).toBe(0);
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe(extractEmbeddedReport(res.text));

    const tampered = res.text.replace(/"allowed":1,"attempts":/, '"allowed":0,"attempts":');
    expect(tampered).not.toBe(res.text);
    writeFileSync(join(dir, 'report.html'), tampered);
    const failed = runRecipe(dir);
    expect(failed.output).toContain('Signature Verification Failure');
    expect(failed.status).not.toBe(0);
  });
});
