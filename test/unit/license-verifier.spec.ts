import { KeyObject } from 'node:crypto';
import {
  LicenseRejectedError,
  licenseTimeState,
  verifyLicense,
} from '../../src/modules/licensing/license-verifier';
import {
  armor,
  buildLicense,
  licensePayload,
  newSigningKey,
  signParts,
  testSigningKey,
} from '../support/licenses';

const key = testSigningKey();
const trusted: ReadonlyMap<string, KeyObject> = new Map([[key.kid, key.publicKey]]);
const DAY_MS = 86_400_000;

function rejection(text: string): { event: string; reason: string } {
  try {
    verifyLicense(text, trusted);
  } catch (error) {
    if (error instanceof LicenseRejectedError) return { event: error.event, reason: error.reason };
    throw error;
  }
  throw new Error('the license was accepted');
}

function withEnvelope(
  change: (envelope: Record<string, unknown>) => void,
  payload = licensePayload(),
): string {
  const { envelope } = signParts(payload);
  change(envelope);
  return armor(envelope);
}

describe('verifyLicense (DESIGN.md §4)', () => {
  it('accepts a valid license and returns its signed content', () => {
    const license = verifyLicense(
      buildLicense({
        entitlements: ['simulation', 'mcp'],
        caps: { max_devices: 7, max_devices_per_key: 2, seats: 9 },
      }),
      trusted,
    );
    expect(license).toMatchObject({
      id: 'lic_test_0001',
      kid: key.kid,
      licensee: 'Test Licensee GmbH',
      edition: 'enterprise',
      entitlements: ['simulation', 'mcp'],
      caps: { max_devices: 7, max_devices_per_key: 2, seats: 9 },
    });
    expect(licenseTimeState(license, new Date())).toBe('active');
  });

  it('accepts CRLF line endings and unwrapped armor', () => {
    const body = Buffer.from(JSON.stringify(signParts(licensePayload()).envelope)).toString('base64');
    const text = `-----BEGIN SERVICE LICENSE-----\r\n${body}\r\n-----END SERVICE LICENSE-----\r\n`;
    expect(verifyLicense(text, trusted).id).toBe('lic_test_0001');
  });

  it('rejects a tampered enc (payload changed after signing)', () => {
    const text = withEnvelope((env) => {
      const payload = JSON.parse(Buffer.from(env.enc as string, 'base64url').toString());
      payload.edition = 'platinum';
      env.enc = Buffer.from(JSON.stringify(payload)).toString('base64url');
    });
    expect(rejection(text)).toEqual({
      event: 'license_invalid',
      reason: expect.stringContaining('signature'),
    });
  });

  it('rejects a payload claiming more devices than its signature covers', () => {
    const text = withEnvelope((env) => {
      const payload = JSON.parse(Buffer.from(env.enc as string, 'base64url').toString());
      payload.caps.max_devices = 100000;
      env.enc = Buffer.from(JSON.stringify(payload)).toString('base64url');
    });
    expect(rejection(text).event).toBe('license_invalid');
  });

  it('rejects caps smuggled into the envelope beside the signed payload', () => {
    const text = withEnvelope((env) => {
      env.caps = { max_devices: 100000, max_devices_per_key: 1000 };
    });
    expect(rejection(text)).toEqual({
      event: 'license_invalid',
      reason: expect.stringContaining('unsigned fields'),
    });
  });

  it('rejects a tampered signature', () => {
    const text = withEnvelope((env) => {
      const sig = Buffer.from(env.sig as string, 'base64url');
      sig[10] ^= 0x01;
      env.sig = sig.toString('base64url');
    });
    expect(rejection(text)).toEqual({
      event: 'license_invalid',
      reason: expect.stringContaining('signature'),
    });
  });

  it('rejects a signature of the wrong length or encoding', () => {
    expect(rejection(withEnvelope((env) => (env.sig = (env.sig as string).slice(0, 40)))).event).toBe(
      'license_invalid',
    );
    expect(rejection(withEnvelope((env) => (env.sig = `${env.sig as string}==`))).event).toBe(
      'license_invalid',
    );
  });

  it('rejects a signature made over enc without the license/v2. prefix', () => {
    const text = withEnvelope((env) => {
      const { sign } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
      env.sig = sign(null, Buffer.from(env.enc as string), key.privateKey).toString('base64url');
    });
    expect(rejection(text).event).toBe('license_invalid');
  });

  it('rejects a license signed by an unknown key, even with a well-formed kid', () => {
    const stranger = newSigningKey();
    expect(rejection(buildLicense({}, stranger))).toEqual({
      event: 'license_invalid',
      reason: expect.stringContaining('does not trust'),
    });
  });

  it('rejects a stranger signature presented under a trusted kid', () => {
    const stranger = newSigningKey();
    const { envelope } = signParts(licensePayload(), stranger);
    envelope.kid = key.kid;
    expect(rejection(armor(envelope)).reason).toContain('signature');
  });

  it('rejects garbage, empty files and bad armor', () => {
    for (const text of [
      '',
      'hello world',
      '\u0000\u0001\u0002',
      '-----BEGIN SERVICE LICENSE-----\n-----END SERVICE LICENSE-----',
      '-----BEGIN SERVICE LICENSE-----\n!!!not base64!!!\n-----END SERVICE LICENSE-----',
      '-----BEGIN SERVICE LICENSE-----\naGVsbG8=\n-----END SERVICE LICENSE-----',
      '-----BEGIN SERVICE LICENSE-----\nW10=\n-----END SERVICE LICENSE-----',
      buildLicense().replace('BEGIN SERVICE LICENSE', 'BEGIN LICENSE'),
      buildLicense().replace('-----END SERVICE LICENSE-----', ''),
      `${buildLicense()}trailing`,
    ]) {
      expect(rejection(text).event).toBe('license_invalid');
    }
  });

  it('treats any version other than 2 as a retired format, before looking at anything else', () => {
    for (const v of [1, 3, '2', 0]) {
      expect(rejection(withEnvelope((env) => (env.v = v))).event).toBe('license_format_retired');
    }
    const v1 = armor({ v: 1, license: { customer: 'Old Corp' }, signature: 'abc' });
    expect(rejection(v1).event).toBe('license_format_retired');
  });

  it('rejects an envelope without a version as invalid', () => {
    expect(rejection(withEnvelope((env) => delete env.v)).event).toBe('license_invalid');
  });

  it('rejects any alg other than ed25519', () => {
    for (const alg of ['EdDSA', 'rs256', 'none', 'ED25519', undefined]) {
      expect(rejection(withEnvelope((env) => (env.alg = alg)))).toEqual({
        event: 'license_invalid',
        reason: expect.stringContaining('algorithm'),
      });
    }
  });

  it('rejects a malformed kid', () => {
    expect(rejection(withEnvelope((env) => (env.kid = key.kid.toUpperCase()))).event).toBe('license_invalid');
    expect(rejection(withEnvelope((env) => (env.kid = `${key.kid}00`))).event).toBe('license_invalid');
  });

  it('requires both caps', () => {
    for (const caps of [undefined, {}, { max_devices: 5 }, { max_devices_per_key: 5 }]) {
      const payload = { ...licensePayload(), caps };
      expect(rejection(armor(signParts(payload).envelope))).toEqual({
        event: 'license_invalid',
        reason: expect.stringContaining('caps'),
      });
    }
  });

  it('requires both caps to be at least 1 and whole', () => {
    for (const caps of [
      { max_devices: 0, max_devices_per_key: 1 },
      { max_devices: 1, max_devices_per_key: 0 },
      { max_devices: 1.5, max_devices_per_key: 1 },
      { max_devices: '5', max_devices_per_key: 1 },
      { max_devices: -1, max_devices_per_key: 1 },
    ]) {
      const payload = { ...licensePayload(), caps };
      expect(rejection(armor(signParts(payload).envelope)).event).toBe('license_invalid');
    }
  });

  it('rejects a signed payload that is not a well-formed license', () => {
    const base = licensePayload();
    for (const payload of [
      'not json',
      '[1,2]',
      { ...base, id: '' },
      { ...base, licensee: 'flat string' },
      { ...base, entitlements: 'mcp' },
      { ...base, expires_at: 'next year' },
      { ...base, expires_at: '2030-13-45T99:00:00Z' },
      { ...base, not_before: undefined },
      { ...base, expires_at: base.not_before },
    ]) {
      expect(rejection(armor(signParts(payload).envelope)).event).toBe('license_invalid');
    }
  });

  it('keeps unknown entitlement names apart: they grant nothing', () => {
    const license = verifyLicense(buildLicense({ entitlements: ['simulation', 'teleportation'] }), trusted);
    expect(license.entitlements).toEqual(['simulation']);
    expect(license.unknownEntitlements).toEqual(['teleportation']);
  });

  it('reports an expired license as expired (exclusive end) and a future one as not yet valid', () => {
    const now = Date.now();
    const expired = verifyLicense(
      buildLicense({
        issuedAt: new Date(now - 30 * DAY_MS),
        notBefore: new Date(now - 30 * DAY_MS),
        expiresAt: new Date(now - DAY_MS),
      }),
      trusted,
    );
    expect(licenseTimeState(expired, new Date())).toBe('expired');
    expect(licenseTimeState(expired, expired.expiresAt)).toBe('expired');
    expect(licenseTimeState(expired, new Date(expired.expiresAt.getTime() - 1))).toBe('active');

    const future = verifyLicense(buildLicense({ notBefore: new Date(now + 2 * DAY_MS) }), trusted);
    expect(licenseTimeState(future, new Date())).toBe('not_yet_valid');
    expect(licenseTimeState(future, new Date(now + 3 * DAY_MS))).toBe('active');
  });
});
