import { createPublicKey } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { verifyEd25519Jws } from '../../common/crypto/ed25519-jws';
import { CliFailure, ExitCode } from './exit-codes';
import { readOptionalFile, writePrivateFileAtomically } from './private-file';

export interface StoredLicense {
  readonly registration_id: string;
  readonly device_id: string;
  readonly license_token: string;
  readonly expires_at: string;
  readonly kid: string;
  readonly public_key_pem: string;
}

interface LicenseFile {
  readonly version: 1;
  readonly licenses: Record<string, StoredLicense>;
}

interface LicenseClaims {
  readonly device_id: string;
  readonly exp: number;
}

export function deviceLicensePath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  return join(
    xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'),
    'decisionctl',
    'device-licenses.json',
  );
}

function readLicenseFile(path: string): LicenseFile {
  const text = readOptionalFile(path);
  if (text === undefined) return { version: 1, licenses: {} };
  try {
    const parsed = JSON.parse(text) as LicenseFile;
    if (parsed.version === 1 && typeof parsed.licenses === 'object' && parsed.licenses !== null)
      return parsed;
  } catch {
    // reported below
  }
  throw new CliFailure(
    `${path} is not a device license file: delete it and run decisionctl login again`,
    ExitCode.configuration,
  );
}

/** A license that fails is never stored. */
export function verifyDeviceLicense(license: StoredLicense): LicenseClaims {
  let claims: LicenseClaims | undefined;
  try {
    claims = verifyEd25519Jws<LicenseClaims>(
      license.license_token,
      createPublicKey(license.public_key_pem),
      license.kid,
    );
  } catch {
    claims = undefined;
  }
  if (claims === undefined)
    throw new CliFailure(
      'the device license does not verify against the appliance license key (signature, key id or expiry)',
      ExitCode.failure,
    );
  if (claims.device_id !== license.device_id)
    throw new CliFailure(
      `the device license names device ${claims.device_id}, not this machine (${license.device_id})`,
      ExitCode.failure,
    );
  return claims;
}

export function storeLicense(baseURL: string, license: StoredLicense, path = deviceLicensePath()): void {
  const file = readLicenseFile(path);
  const next: LicenseFile = { version: 1, licenses: { ...file.licenses, [baseURL]: license } };
  writePrivateFileAtomically(path, `${JSON.stringify(next, null, 2)}\n`);
}

export function removeLicense(baseURL: string, path = deviceLicensePath()): boolean {
  const file = readLicenseFile(path);
  if (!(baseURL in file.licenses)) return false;
  const licenses = { ...file.licenses };
  delete licenses[baseURL];
  writePrivateFileAtomically(path, `${JSON.stringify({ version: 1, licenses }, null, 2)}\n`);
  return true;
}
