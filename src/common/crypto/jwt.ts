import { createHmac, timingSafeEqual } from 'node:crypto';

/** Claims of the tokens this daemon signs; times in seconds since the epoch. */
export interface JwtClaims {
  readonly [claim: string]: unknown;
  readonly iat: number;
  readonly exp: number;
}

export type JwtFailure = 'malformed' | 'unsupported_algorithm' | 'bad_signature' | 'expired' | 'not_yet_valid';

export type JwtVerification = { ok: true; claims: JwtClaims } | { ok: false; reason: JwtFailure };

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Clock skew tolerated on `iat`. */
const LEEWAY_S = 60;

function sign(key: Buffer, input: string): Buffer {
  return createHmac('sha256', key).update(input, 'ascii').digest();
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function signJwt(key: Buffer, claims: JwtClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${HEADER}.${payload}`;
  return `${input}.${sign(key, input).toString('base64url')}`;
}

/** HS256 only: `alg: none` or any other algorithm is refused before the signature is looked at. */
export function verifyJwt(key: Buffer, token: string, nowS = Math.floor(Date.now() / 1000)): JwtVerification {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p)) || parts[0] === '' || parts[1] === '') {
    return { ok: false, reason: 'malformed' };
  }
  const header = decodeJson(parts[0]);
  if (!isObject(header)) return { ok: false, reason: 'malformed' };
  if (header.alg !== 'HS256' || (header.typ !== undefined && header.typ !== 'JWT') || header.crit !== undefined) {
    return { ok: false, reason: 'unsupported_algorithm' };
  }
  const presented = Buffer.from(parts[2], 'base64url');
  const expected = sign(key, `${parts[0]}.${parts[1]}`);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  const claims = decodeJson(parts[1]);
  if (!isObject(claims) || typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
    return { ok: false, reason: 'malformed' };
  }
  if (claims.exp <= nowS) return { ok: false, reason: 'expired' };
  if (claims.iat > nowS + LEEWAY_S) return { ok: false, reason: 'not_yet_valid' };
  return { ok: true, claims: claims as JwtClaims };
}
