import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../src/common/crypto/canonical-json';
import { loadOrCreateReportKey, REPORT_KEY_FILE } from '../../src/modules/privacy/report-key';
import { signReport, verifyReportText } from '../../src/modules/privacy/report-signature';
import { makeTempDir } from '../support/test-app';

describe('privacy report signature', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('ds-report-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const report = {
    report_version: 1,
    generated_at: '2026-11-25T22:00:00.000Z',
    cloud_free: true,
    policy: { mode: 'deny_all', rules: [], sha256: 'e3b0' },
    egress_24h: { attempts: 2, destinations: [{ host: 'a', port: 1 }] },
  };

  it('writes canonical JSON with sorted keys', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1, y: 2 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":2,"z":1}}',
    );
  });

  it('creates the key once with mode 0600 and a stable kid', () => {
    const key = loadOrCreateReportKey(dir);
    expect(statSync(join(dir, REPORT_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(key.kid).toMatch(/^[0-9a-f]{16}$/);
    expect(loadOrCreateReportKey(dir).kid).toBe(key.kid);
  });

  it('verifies an intact report and fails on any changed byte', () => {
    const key = loadOrCreateReportKey(dir);
    const text = signReport(report, key.privateKey, key.kid);
    expect(verifyReportText(text, key.publicKeyPem)).toEqual({
      ok: true,
      reason: expect.stringContaining(key.kid),
    });
    expect(verifyReportText(`${text}\n`, key.publicKeyPem).ok).toBe(true);
    for (let i = 0; i < text.length; i++) {
      const bytes = Buffer.from(text, 'utf8');
      bytes[i] = bytes[i] === 0x30 ? 0x31 : bytes[i] ^ 0x01;
      const result = verifyReportText(bytes.toString('latin1'), key.publicKeyPem);
      if (result.ok) throw new Error(`a change at byte ${i} was not detected`);
    }
  });

  it('explains re-formatting and other keys', () => {
    const key = loadOrCreateReportKey(dir);
    const text = signReport(report, key.privateKey, key.kid);
    const pretty = JSON.stringify(JSON.parse(text), null, 2);
    expect(verifyReportText(pretty, key.publicKeyPem).reason).toMatch(/not byte-identical/);
    expect(verifyReportText(pretty, key.publicKeyPem, { allowReformatted: true }).ok).toBe(true);
    const other = loadOrCreateReportKey(makeTempDir('ds-report-other-'));
    expect(verifyReportText(text, other.publicKeyPem).reason).toMatch(/signed by key/);
    const edited = text.replace('"cloud_free":true', '"cloud_free":false');
    expect(verifyReportText(edited, key.publicKeyPem).reason).toMatch(/signature does not match/);
  });
});
