import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signupAccount } from '../factories/accounts';
import { startTestApp, TestApp } from '../support/test-app';

/** What operators and auditors see of the served certificate, checked against node:crypto's reading of the file. */
describe('TLS status in /v1/infrastructure, the privacy report and /metrics', () => {
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
});
