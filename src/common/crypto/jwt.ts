import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';

export interface JwtClaims {
  readonly [claim: string]: unknown;
  readonly iat: number;
  readonly exp: number;
}

export type JwtFailure =
  'malformed' | 'unsupported_algorithm' | 'bad_signature' | 'expired' | 'not_yet_valid';

export type JwtVerification = { ok: true; claims: JwtClaims } | { ok: false; reason: JwtFailure };

const ALGORITHM = 'HS256';
const LEEWAY_S = 60;

// Compared by code: jest loads jose in another realm.
const FAILURE_BY_CODE: Readonly<Record<string, JwtFailure>> = {
  [errors.JWSSignatureVerificationFailed.code]: 'bad_signature',
  [errors.JOSEAlgNotAllowed.code]: 'unsupported_algorithm',
  [errors.JOSENotSupported.code]: 'unsupported_algorithm',
  [errors.JWTExpired.code]: 'expired',
};

/** A copy made in this realm: jose checks `instanceof Uint8Array`, which a Buffer from another realm fails. */
function secretOf(key: Buffer): Uint8Array {
  return new Uint8Array(key);
}

export function signJwt(key: Buffer, claims: JwtClaims): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' }).sign(secretOf(key));
}

function checkHeader(token: string): JwtFailure | undefined {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return 'malformed';
  }
  // jose would refuse these too, but as "invalid JWS": named here so `alg: none` reads as the refusal it is.
  if (header.alg !== ALGORITHM || (header.typ !== undefined && header.typ !== 'JWT'))
    return 'unsupported_algorithm';
  return undefined;
}

/** HS256 only: `alg: none` or any other algorithm is refused before the signature is looked at. */
export async function verifyJwt(
  key: Buffer,
  token: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<JwtVerification> {
  const refused = checkHeader(token);
  if (refused) return { ok: false, reason: refused };
  try {
    const { payload } = await jwtVerify(token, secretOf(key), {
      algorithms: [ALGORITHM],
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowS * 1000),
    });
    const claims = payload as JwtClaims;
    if (claims.iat > nowS + LEEWAY_S) return { ok: false, reason: 'not_yet_valid' };
    return { ok: true, claims };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    // Only jose's refusals are answers about the token; anything else (a bad key) is the daemon's fault.
    if (typeof code !== 'string' || !code.startsWith('ERR_J')) throw error;
    return { ok: false, reason: FAILURE_BY_CODE[code] ?? 'malformed' };
  }
}
