import { KeyObject, sign } from 'node:crypto';
import { keyIdOf } from '../../common/crypto/ed25519-key';

/** The v2 license file format (DESIGN.md §4), shared by the verifier and the vendor tool. */
export const LICENSE_ARMOR_BEGIN = '-----BEGIN SERVICE LICENSE-----';
export const LICENSE_ARMOR_END = '-----END SERVICE LICENSE-----';
export const LICENSE_SIGNING_PREFIX = 'license/v2.';
export const LICENSE_VERSION = 2;
export const LICENSE_ALG = 'ed25519';

export interface LicenseEnvelope {
  readonly v: number;
  readonly alg: string;
  readonly kid: string;
  readonly enc: string;
  readonly sig: string;
}

export interface LicenseCaps {
  readonly max_devices: number;
  readonly max_devices_per_key: number;
  readonly [cap: string]: number;
}

export interface LicensePayload {
  readonly id: string;
  readonly licensee: { readonly name: string };
  readonly edition: string;
  readonly entitlements: readonly string[];
  readonly caps: LicenseCaps;
  readonly issued_at: string;
  readonly not_before: string;
  readonly expires_at: string;
}

/** The exact bytes the signature covers. */
export function signingInput(enc: string): Buffer {
  return Buffer.from(LICENSE_SIGNING_PREFIX + enc, 'ascii');
}

export function encodeLicense(payload: LicensePayload, privateKey: KeyObject, publicKey: KeyObject): string {
  const enc = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const sig = sign(null, signingInput(enc), privateKey).toString('base64url');
  const envelope: LicenseEnvelope = {
    v: LICENSE_VERSION,
    alg: LICENSE_ALG,
    kid: keyIdOf(publicKey),
    enc,
    sig,
  };
  const body = Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
  const lines = body.match(/.{1,64}/g) ?? [];
  return [LICENSE_ARMOR_BEGIN, ...lines, LICENSE_ARMOR_END, ''].join('\n');
}
