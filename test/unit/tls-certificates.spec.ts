import { X509Certificate } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import { createLogger } from '../../src/common/logging';
import { TlsCertificates } from '../../src/common/tls';

const DAY_MS = 86_400_000;

/** Renewal of a generated certificate and the expiry warnings, on a clock the test moves. */
describe('TlsCertificates over time', () => {
  let dir: string;
  let lines: Record<string, unknown>[];
  let now: Date;
  const logger = () =>
    createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
  const events = (event: string) => lines.filter((line) => line.event === event);
  const base = (tls: 'self-signed' | 'files', extra: object = {}) => ({
    tls,
    tlsDir: join(dir, 'tls'),
    tlsCertFile: undefined,
    tlsKeyFile: undefined,
    tlsChainFile: undefined,
    tlsSans: [],
    ...extra,
  });

  // One RSA 3072 key for the file: generating it is the slow part.
  let generated: string;
  beforeAll(() => {
    generated = mkdtempSync(join(tmpdir(), 'ds-tls-unit-'));
    dir = generated;
    lines = [];
    TlsCertificates.open(base('self-signed'), logger(), () => new Date('2030-01-01T00:00:00Z'));
  });
  afterAll(() => rmSync(generated, { recursive: true, force: true }));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ds-tls-unit-'));
    cpSync(join(generated, 'tls'), join(dir, 'tls'), { recursive: true });
    lines = [];
    now = new Date('2030-01-01T00:00:00Z');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renews a generated certificate 30 days before expiry, on the same key, and swaps the server context', () => {
    const tls = TlsCertificates.open(base('self-signed'), logger(), () => now);
    const contexts: SecureContextOptions[] = [];
    tls.attach({ setSecureContext: (options) => contexts.push(options) });
    const first = tls.status().certificate!;
    const key = readFileSync(join(dir, 'tls', 'key.pem'), 'utf8');

    now = new Date(first.notAfter.getTime() - 31 * DAY_MS);
    tls.checkExpiry();
    expect(contexts).toHaveLength(0);

    now = new Date(first.notAfter.getTime() - 29 * DAY_MS);
    tls.checkExpiry();
    tls.detach();
    const renewed = tls.status().certificate!;
    expect(renewed.fingerprintSha256).not.toBe(first.fingerprintSha256);
    expect(renewed.notAfter.getTime()).toBeGreaterThan(now.getTime() + 300 * DAY_MS);
    expect(readFileSync(join(dir, 'tls', 'key.pem'), 'utf8')).toBe(key);
    expect(contexts).toHaveLength(1);
    expect(new X509Certificate(String(contexts[0].cert)).fingerprint256).toBe(renewed.fingerprintSha256);
    expect(contexts[0].minVersion).toBe('TLSv1.2');
    expect(events('tls_certificate_renewed')).toHaveLength(1);
    expect(events('tls_certificate_expiring')).toHaveLength(0);
  });

  it('never renews the operator files: warns once at 30 days and once more at 7', () => {
    const files = base('files', {
      tlsCertFile: join(dir, 'tls', 'cert.pem'),
      tlsKeyFile: join(dir, 'tls', 'key.pem'),
    });
    const tls = TlsCertificates.open(files, logger(), () => now);
    const notAfter = tls.status().certificate!.notAfter.getTime();
    const warnings = () => events('tls_certificate_expiring').map((line) => line.days_left);

    for (const daysLeft of [40, 29.5, 20, 6.5, 3]) {
      now = new Date(notAfter - daysLeft * DAY_MS);
      tls.checkExpiry();
    }
    expect(warnings()).toEqual([29, 6]);
    expect(events('tls_certificate_renewed')).toHaveLength(0);
    expect(lines.find((line) => line.event === 'tls_certificate_expiring')?.level).toBe('warn');
  });
});
