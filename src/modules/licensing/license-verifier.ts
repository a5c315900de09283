import { KeyObject, verify } from 'node:crypto';
import { Entitlement, isEntitlement } from '../../common/auth/entitlements';
import {
  LICENSE_ALG,
  LICENSE_ARMOR_BEGIN,
  LICENSE_ARMOR_END,
  LICENSE_VERSION,
  LicenseCaps,
  signingInput,
} from './license-format';

export type LicenseRejection = 'license_invalid' | 'license_format_retired';

export class LicenseRejectedError extends Error {
  constructor(
    readonly event: LicenseRejection,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'LicenseRejectedError';
  }
}

export interface VerifiedLicense {
  readonly id: string;
  readonly kid: string;
  readonly licensee: string;
  readonly edition: string;
  readonly entitlements: readonly Entitlement[];
  /** Names this appliance does not know (from a newer vendor tool); they grant nothing. */
  readonly unknownEntitlements: readonly string[];
  readonly caps: LicenseCaps;
  readonly issuedAt: Date;
  readonly notBefore: Date;
  readonly expiresAt: Date;
}

export type LicenseTimeState = 'active' | 'expired' | 'not_yet_valid';

const ENVELOPE_FIELDS = ['alg', 'enc', 'kid', 'sig', 'v'];
const KID = /^[0-9a-f]{16}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const ED25519_SIGNATURE_BYTES = 64;

function invalid(reason: string): never {
  throw new LicenseRejectedError('license_invalid', reason);
}

/** In the order of DESIGN.md §4; the payload is not decoded before the signature holds. */
export function verifyLicense(text: string, trustedKeys: ReadonlyMap<string, KeyObject>): VerifiedLicense {
  const envelope = parseEnvelope(unarmor(text));

  if (!('v' in envelope)) invalid('the envelope has no version field');
  if (envelope.v !== LICENSE_VERSION) {
    throw new LicenseRejectedError(
      'license_format_retired',
      `license format version ${JSON.stringify(envelope.v)} is retired: only v2 licenses are accepted`,
    );
  }
  const extra = Object.keys(envelope).filter((k) => !ENVELOPE_FIELDS.includes(k));
  if (extra.length > 0) invalid(`the envelope carries unsigned fields: ${extra.join(', ')}`);
  if (envelope.alg !== LICENSE_ALG)
    invalid(`unsupported signature algorithm ${JSON.stringify(envelope.alg)}`);

  const kid = envelope.kid;
  if (typeof kid !== 'string' || !KID.test(kid)) invalid('kid must be 16 lowercase hex characters');
  const key = trustedKeys.get(kid);
  if (!key) invalid(`the license is signed by key ${kid}, which this appliance does not trust`);

  const enc = strictBase64Url(envelope.enc, 'enc');
  const sig = Buffer.from(strictBase64Url(envelope.sig, 'sig'), 'base64url');
  if (sig.length !== ED25519_SIGNATURE_BYTES) invalid('sig is not an Ed25519 signature');
  if (!verify(null, signingInput(enc), key, sig)) invalid('the signature does not match the license content');

  return { kid, ...parsePayload(Buffer.from(enc, 'base64url').toString('utf8')) };
}

/** Where a verified license stands at a given time (expires_at is exclusive). */
export function licenseTimeState(license: VerifiedLicense, at: Date): LicenseTimeState {
  if (at.getTime() < license.notBefore.getTime()) return 'not_yet_valid';
  if (at.getTime() >= license.expiresAt.getTime()) return 'expired';
  return 'active';
}

function unarmor(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').trim().split('\n');
  if (
    lines.length < 3 ||
    lines[0].trim() !== LICENSE_ARMOR_BEGIN ||
    lines[lines.length - 1].trim() !== LICENSE_ARMOR_END
  ) {
    invalid('the file is not an armored SERVICE LICENSE');
  }
  const body = lines
    .slice(1, -1)
    .map((l) => l.trim())
    .join('');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body))
    invalid('the armored body is not base64');
  return Buffer.from(body, 'base64').toString('utf8');
}

function parseEnvelope(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    invalid('the armored body is not a JSON envelope');
  }
  if (!isPlainObject(value)) invalid('the envelope is not a JSON object');
  return value;
}

/** Canonical unpadded base64url only, so one signature has one spelling. */
function strictBase64Url(value: unknown, field: string): string {
  if (typeof value !== 'string' || !BASE64URL.test(value)) invalid(`${field} is not base64url`);
  if (Buffer.from(value, 'base64url').toString('base64url') !== value)
    invalid(`${field} is not canonical base64url`);
  return value;
}

function parsePayload(json: string): Omit<VerifiedLicense, 'kid'> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    invalid('the signed payload is not JSON');
  }
  if (!isPlainObject(value)) invalid('the signed payload is not a JSON object');
  const id = requiredText(value.id, 'id');
  const licensee = isPlainObject(value.licensee)
    ? requiredText(value.licensee.name, 'licensee.name')
    : invalid('licensee.name is missing');
  const edition = requiredText(value.edition, 'edition');
  if (!Array.isArray(value.entitlements) || !value.entitlements.every((e) => typeof e === 'string')) {
    invalid('entitlements must be a list of names');
  }
  const names = [...new Set(value.entitlements)];
  const issuedAt = requiredDate(value.issued_at, 'issued_at');
  const notBefore = requiredDate(value.not_before, 'not_before');
  const expiresAt = requiredDate(value.expires_at, 'expires_at');
  if (expiresAt.getTime() <= notBefore.getTime()) invalid('expires_at must be after not_before');
  return {
    id,
    licensee,
    edition,
    entitlements: names.filter(isEntitlement),
    unknownEntitlements: names.filter((n) => !isEntitlement(n)),
    caps: parseCaps(value.caps),
    issuedAt,
    notBefore,
    expiresAt,
  };
}

function parseCaps(value: unknown): LicenseCaps {
  if (!isPlainObject(value)) invalid('caps are missing');
  const caps: Record<string, number> = {};
  for (const [name, cap] of Object.entries(value)) {
    if (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap < 0)
      invalid(`caps.${name} must be a whole number`);
    caps[name] = cap;
  }
  for (const required of ['max_devices', 'max_devices_per_key']) {
    if (!(required in caps)) invalid(`caps.${required} is missing`);
    if (caps[required] < 1) invalid(`caps.${required} must be at least 1`);
  }
  return caps as LicenseCaps;
}

function requiredText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(`${field} is missing`);
  return value;
}

function requiredDate(value: unknown, field: string): Date {
  if (typeof value !== 'string' || !RFC3339.test(value)) invalid(`${field} is not an RFC 3339 timestamp`);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) invalid(`${field} is not a valid date`);
  return date;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
