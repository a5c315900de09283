import { KeyObject, sign, verify } from 'node:crypto';

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

export function signEd25519Jws(claims: object, privateKey: KeyObject, kid: string): string {
  const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid })}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input, 'ascii'), privateKey).toString('base64url')}`;
}

/** Undefined for a bad signature, another algorithm or key id, a malformed token or an expired one. */
export function verifyEd25519Jws<T extends { exp: number }>(
  token: string,
  publicKey: KeyObject,
  kid: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): T | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as {
      alg?: unknown;
      kid?: unknown;
    };
    if (header.alg !== 'EdDSA' || header.kid !== kid) return undefined;
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
    if (!verify(null, signed, publicKey, Buffer.from(parts[2], 'base64url'))) return undefined;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as T;
    return typeof claims.exp === 'number' && claims.exp > nowSeconds ? claims : undefined;
  } catch {
    return undefined;
  }
}
