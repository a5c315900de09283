import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyReportText } from '../../src/modules/privacy/report-signature';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { createApiKey, signupAccount } from '../factories/accounts';
import { REPO_ROOT } from '../support/daemon-process';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

describe('GET /v1/admin/privacy-report', () => {
  let t: TestApp;
  let receiver: Receiver;
  let operator: string;
  let outsider: string;
  let operatorMember: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
    operator = (await signupAccount(t)).apiKey;
    outsider = (await signupAccount(t)).apiKey;
    operatorMember = (await createApiKey(t, operator, { role: 'member' })).rawKey;
    await t.request('POST', '/v1/webhooks/test', { token: operator, body: { callback_url: receiver.url } });
    await t.request('POST', '/v1/webhooks/test', {
      token: outsider,
      body: { callback_url: 'http://169.254.169.254/' },
    });
  });

  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('is only for admins of the operator organization', async () => {
    for (const path of ['/v1/admin/privacy-report', '/v1/admin/privacy-report/public-key']) {
      const res = await t.request('GET', path, { token: outsider });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      const member = await t.request('GET', path, { token: operatorMember });
      expect(member.status).toBe(403);
      expect(member.body.error.code).toBe('insufficient_role');
      expect((await t.request('GET', path)).status).toBe(401);
    }
  });

  it('summarises the last 24 hours of egress, signed, and verifies offline', async () => {
    const key = await t.request('GET', '/v1/admin/privacy-report/public-key', { token: operator });
    expect(key.status).toBe(200);
    expect(key.body.public_key_pem).toContain('BEGIN PUBLIC KEY');
    expect(key.body.kid).toMatch(/^[0-9a-f]{16}$/);

    const res = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(res.status).toBe(200);
    const report = res.body;
    expect(report.report_version).toBe(1);
    expect(new Date(report.window.end).getTime() - new Date(report.window.start).getTime()).toBe(86_400_000);
    expect(report.telemetry).toEqual({ phone_home: false, update_check: false, crash_upload: false });
    expect(report.license).toEqual({ edition: expect.any(String), status: expect.any(String) });
    expect(report.policy).toEqual({
      mode: 'allowlist',
      rules: [`127.0.0.1:${receiver.port}`],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(report.egress_24h).toMatchObject({ attempts: 2, allowed: 1, denied: 1 });
    expect(report.egress_24h.destinations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          host: '127.0.0.1',
          port: receiver.port,
          purpose: 'webhook',
          allowed: 1,
          denied: 0,
          addresses: ['127.0.0.1'],
        }),
        expect.objectContaining({
          host: '169.254.169.254',
          port: 80,
          purpose: 'webhook',
          allowed: 0,
          denied: 1,
        }),
      ]),
    );
    expect(report.cloud_free).toBe(true);
    expect(report.cloud_free_findings).toEqual([]);
    expect(report.chain).toMatchObject({
      length: 2,
      verified: true,
      head_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(report.signature).toMatchObject({ alg: 'Ed25519', kid: key.body.kid });

    expect(verifyReportText(res.text, key.body.public_key_pem).ok).toBe(true);
    const tampered = res.text.replace('"denied":1', '"denied":0');
    expect(tampered).not.toBe(res.text);
    expect(verifyReportText(tampered, key.body.public_key_pem).ok).toBe(false);

    const dir = makeTempDir('ds-verify-');
    writeFileSync(join(dir, 'key.pem'), key.body.public_key_pem);
    writeFileSync(join(dir, 'report.json'), res.text);
    const cli = join(REPO_ROOT, 'dist', 'cli', 'verify-report.js');
    const out = execFileSync(process.execPath, [
      cli,
      '--public-key',
      join(dir, 'key.pem'),
      join(dir, 'report.json'),
    ]);
    expect(out.toString()).toMatch(/^OK/);
    const bytes = Buffer.from(res.text, 'utf8');
    const at = res.text.indexOf('"attempts":2') + '"attempts":'.length;
    bytes[at] = '3'.charCodeAt(0);
    writeFileSync(join(dir, 'report.json'), bytes);
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [cli, '--public-key', join(dir, 'key.pem'), join(dir, 'report.json')], {
        stdio: 'pipe',
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr).toMatch(/FAILED: the signature does not match/);
  });
});
