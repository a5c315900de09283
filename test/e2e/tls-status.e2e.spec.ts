import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { APIConnectionError, DecisionService } from '../../sdk/src';
import { REPO_ROOT } from '../support/daemon-process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/** What operators and auditors see of the served certificate, checked against node:crypto's reading of the file. */
const run = promisify(execFile);

/** decisionctl as its own process (the app under test lives in this one, so never spawnSync). */
async function decisionctl(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPO_ROOT, 'dist', 'cli', 'decisionctl.js'), ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('TLS status in /v1/infrastructure, the privacy report and /metrics; clients over HTTPS', () => {
  let t: TestApp;
  let operator: string;
  let served: X509Certificate;

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_TLS: 'self-signed' });
    served = new X509Certificate(readFileSync(join(t.dataDir, 'tls', 'cert.pem')));
    operator = (await signupAccount(t)).apiKey;
  }, 60_000);
  afterAll(() => t.close());

  const expected = () => ({
    mode: 'self-signed',
    origin: 'generated',
    subject: 'CN=localhost, O=Decision Service appliance',
    fingerprint_sha256: served.fingerprint256,
    expires_at: new Date(served.validTo).toISOString(),
  });

  it('serves HTTPS and states the certificate in /v1/infrastructure', async () => {
    expect(t.baseUrl).toMatch(/^https:/);
    const res = await t.request('GET', '/v1/infrastructure', { token: operator });
    expect(res.status).toBe(200);
    expect(res.body.tls).toEqual(expected());
  });

  it('states it in the signed privacy report and its page', async () => {
    const report = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(report.status).toBe(200);
    expect(report.body.tls).toEqual(expected());
    const page = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    expect(page.text).toContain(served.fingerprint256);
  });

  it('exports the expiry as service_tls_certificate_expiry_timestamp_seconds', async () => {
    const metrics = await t.request('GET', '/metrics');
    const seconds = Math.floor(new Date(served.validTo).getTime() / 1000);
    expect(metrics.text).toContain(`service_tls_certificate_expiry_timestamp_seconds ${seconds}`);
  });

  it('the SDK trusts the appliance through caFile or SERVICE_CA_FILE and refuses it without', async () => {
    const caFile = join(t.dataDir, 'tls', 'cert.pem');
    const trusting = new DecisionService({ apiKey: operator, baseURL: t.baseUrl, caFile, maxRetries: 0 });
    expect((await trusting.me()).organization.is_operator).toBe(true);
    const strict = new DecisionService({
      apiKey: operator,
      baseURL: t.baseUrl,
      fetch: globalThis.fetch,
      maxRetries: 0,
    });
    await expect(strict.me()).rejects.toBeInstanceOf(APIConnectionError);
    const fromVariable = new DecisionService({ apiKey: operator, baseURL: t.baseUrl, maxRetries: 0 });
    // The test process has no SERVICE_CA_FILE: the default is the system CAs, which do not know this certificate.
    await expect(fromVariable.me()).rejects.toThrow(/certificate/i);
  });

  it('decisionctl verifies with SERVICE_CA_FILE, refuses an unknown certificate, and warns on every --insecure call', async () => {
    const env = { SERVICE_BASE_URL: t.baseUrl, SERVICE_API_KEY: operator };
    const trusted = await decisionctl(['whoami', '--format', 'json'], {
      ...env,
      SERVICE_CA_FILE: join(t.dataDir, 'tls', 'cert.pem'),
    });
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ key: { role: 'owner' } });

    const unknown = await decisionctl(['whoami'], env);
    expect(unknown.code).toBe(69);
    expect(unknown.stderr).toMatch(/certificate/i);

    const insecure = await decisionctl(['--insecure', 'whoami', '--format', 'json'], env);
    expect(insecure.code).toBe(0);
    expect(insecure.stderr).toContain("WARNING: --insecure: the appliance's certificate is not verified");
  });
});
