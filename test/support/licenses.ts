import { createHash, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITLEMENTS } from '../../src/common/auth/entitlements';

/**
 * Builds v2 licenses byte for byte as DESIGN.md §4 describes, with node:crypto only (independent of the daemon's
 * own encoder, so tests check the format rather than the code against itself).
 */
export interface TestSigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicPem: string;
  readonly kid: string;
}

export function newSigningKey(): TestSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: createHash('sha256').update(der).digest('hex').slice(0, 16),
  };
}

let shared: TestSigningKey | undefined;
/** One signing key per test process. */
export function testSigningKey(): TestSigningKey {
  shared ??= newSigningKey();
  return shared;
}

export const ALL_ENTITLEMENTS: readonly string[] = [...ENTITLEMENTS];

export interface TestLicenseOptions {
  readonly id?: string;
  readonly licensee?: string;
  readonly edition?: string;
  readonly entitlements?: readonly string[];
  readonly caps?: Record<string, number>;
  readonly issuedAt?: Date | string;
  readonly notBefore?: Date | string;
  readonly expiresAt?: Date | string;
}

const DAY_MS = 86_400_000;
const iso = (d: Date | string): string => (typeof d === 'string' ? d : d.toISOString());

export function licensePayload(options: TestLicenseOptions = {}): Record<string, unknown> {
  const now = Date.now();
  return {
    id: options.id ?? 'lic_test_0001',
    licensee: { name: options.licensee ?? 'Test Licensee GmbH' },
    edition: options.edition ?? 'enterprise',
    entitlements: options.entitlements ?? ALL_ENTITLEMENTS,
    caps: options.caps ?? { max_devices: 100, max_devices_per_key: 10 },
    issued_at: iso(options.issuedAt ?? new Date(now - DAY_MS)),
    not_before: iso(options.notBefore ?? new Date(now - DAY_MS)),
    expires_at: iso(options.expiresAt ?? new Date(now + 365 * DAY_MS)),
  };
}

export function armor(envelope: unknown): string {
  const body = Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
  return `-----BEGIN SERVICE LICENSE-----\n${body.replace(/(.{64})/g, '$1\n')}\n-----END SERVICE LICENSE-----\n`;
}

export interface SignedParts {
  readonly enc: string;
  readonly sig: string;
  readonly envelope: Record<string, unknown>;
}

/** enc = base64url(payload JSON); sig = Ed25519 over `license/v2.` + enc. */
export function signParts(payload: unknown, key: TestSigningKey = testSigningKey()): SignedParts {
  const enc = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8').toString(
    'base64url',
  );
  const sig = sign(null, Buffer.from(`license/v2.${enc}`, 'ascii'), key.privateKey).toString('base64url');
  return { enc, sig, envelope: { v: 2, alg: 'ed25519', kid: key.kid, enc, sig } };
}

export function buildLicense(
  options: TestLicenseOptions = {},
  key: TestSigningKey = testSigningKey(),
): string {
  return armor(signParts(licensePayload(options), key).envelope);
}

/**
 * Installs a license signed by the test key into `dataDir` and returns the env for startTestApp / spawnDaemon
 * (the key is trusted through SERVICE_LICENSE_PUBLIC_KEY_FILE, honoured only with NODE_ENV=test|development):
 *   const dir = makeTempDir();
 *   const t = await startTestApp(writeTestLicense(dir, { entitlements: ['mcp', 'runtime_library'] }), dir);
 */
export function writeTestLicense(dataDir: string, options: TestLicenseOptions = {}): Record<string, string> {
  const key = testSigningKey();
  const keyFile = join(dataDir, 'test-license-signing-key.pub.pem');
  const licenseFile = join(dataDir, 'license.lic');
  writeFileSync(keyFile, key.publicPem);
  writeFileSync(licenseFile, buildLicense(options, key));
  return { SERVICE_LICENSE_PUBLIC_KEY_FILE: keyFile, SERVICE_LICENSE_FILE: licenseFile };
}
