import { createHash, createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../../common/crypto/canonical-json';
import { keyIdOf } from '../../common/crypto/ed25519-key';

export const SIGNATURE_ALG = 'Ed25519';
/** Prefixed to the canonical payload before signing, so a report signature can never be replayed as another kind. */
export const SIGNING_CONTEXT = 'decision-service/privacy-report/v1\n';

export interface ReportSignature {
  readonly alg: typeof SIGNATURE_ALG;
  readonly kid: string;
  readonly value: string;
}

export function signedBytes(report: Record<string, unknown>): Buffer {
  const { signature: _ignored, ...payload } = report;
  return Buffer.from(SIGNING_CONTEXT + canonicalJson(payload), 'utf8');
}

export function reportHash(report: Record<string, unknown>): string {
  return createHash('sha256').update(signedBytes(report)).digest('hex');
}

export function signReport(report: Record<string, unknown>, privateKey: KeyObject, kid: string): string {
  const value = sign(null, signedBytes(report), privateKey).toString('base64');
  const signature: ReportSignature = { alg: SIGNATURE_ALG, kid, value };
  return canonicalJson({ ...report, signature });
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly reason: string;
}

export interface VerifyOptions {
  /** Accept a document that was re-formatted (whitespace, key order) as long as the signed content is intact. */
  readonly allowReformatted?: boolean;
}

export function verifyReportText(
  text: string,
  publicKeyPem: string,
  options: VerifyOptions = {},
): VerifyResult {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    return { ok: false, reason: 'the public key is not a PEM-encoded public key' };
  }
  if (publicKey.asymmetricKeyType !== 'ed25519')
    return { ok: false, reason: 'the public key is not an Ed25519 key' };
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the report is not valid JSON (it was truncated or edited)' };
  }
  if (typeof report !== 'object' || report === null || Array.isArray(report)) {
    return { ok: false, reason: 'the report is not a JSON object' };
  }
  const document = report as Record<string, unknown>;
  const signature = document.signature as Partial<ReportSignature> | undefined;
  if (!signature || typeof signature !== 'object')
    return { ok: false, reason: 'the report has no signature' };
  if (signature.alg !== SIGNATURE_ALG)
    return { ok: false, reason: `unsupported signature algorithm ${String(signature.alg)}` };
  const kid = keyIdOf(publicKey);
  if (signature.kid !== kid) {
    return {
      ok: false,
      reason: `the report was signed by key ${String(signature.kid)}, not by this key (${kid})`,
    };
  }
  const value =
    typeof signature.value === 'string' ? Buffer.from(signature.value, 'base64') : Buffer.alloc(0);
  if (value.length !== 64 || value.toString('base64') !== signature.value) {
    return { ok: false, reason: 'the signature value is not a base64 Ed25519 signature' };
  }
  if (!verify(null, signedBytes(document), publicKey, value)) {
    return {
      ok: false,
      reason: 'the signature does not match: the report content was changed after signing',
    };
  }
  if (!options.allowReformatted && text.replace(/\n$/, '') !== canonicalJson(document)) {
    return {
      ok: false,
      reason:
        'the signed content is intact, but the file is not byte-identical to what the appliance served ' +
        '(re-formatted or edited); pass --allow-reformatted to accept that',
    };
  }
  return { ok: true, reason: `signature valid (key ${kid})` };
}
