import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { signJwt, verifyJwt } from '../../src/common/crypto';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef');
const NOW = 1_800_000_000;
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function handMade(header: unknown, claims: unknown, key = KEY): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

function rs256(claims: unknown): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

describe('HS256 session tokens', () => {
  const claims = { sub: 'usr_1', sid: 'ses_1', iat: NOW, exp: NOW + 3600 };

  it('round-trips claims under an HS256/JWT header', async () => {
    const token = await signJwt(KEY, claims);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'JWT',
    });
    expect(await verifyJwt(KEY, token, NOW + 10)).toEqual({ ok: true, claims });
  });

  it('verifies a token made by hand with the same key (the wire format is plain RFC 7519)', async () => {
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256', typ: 'JWT' }, claims), NOW)).toEqual({
      ok: true,
      claims,
    });
  });

  it('refuses a tampered payload or signature, and another key', async () => {
    const [h, , s] = (await signJwt(KEY, claims)).split('.');
    expect(await verifyJwt(KEY, `${h}.${b64({ ...claims, sub: 'usr_2' })}.${s}`, NOW)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(await verifyJwt(KEY, `${h}.${b64(claims)}.${s.slice(1)}A`, NOW)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const otherKey = Buffer.from('another key of 32 bytes........!');
    expect(await verifyJwt(otherKey, await signJwt(KEY, claims), NOW)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses alg none and every algorithm but HS256, before checking the signature', async () => {
    expect(await verifyJwt(KEY, `${b64({ alg: 'none' })}.${b64(claims)}.`, NOW)).toEqual({
      ok: false,
      reason: 'unsupported_algorithm',
    });
    const noneWithSig = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.AAAA`;
    expect(await verifyJwt(KEY, noneWithSig, NOW)).toEqual({ ok: false, reason: 'unsupported_algorithm' });
    for (const alg of ['HS384', 'HS512', 'RS256', 'EdDSA', 'hs256', undefined]) {
      expect(await verifyJwt(KEY, handMade({ alg, typ: 'JWT' }, claims), NOW)).toEqual({
        ok: false,
        reason: 'unsupported_algorithm',
      });
    }
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256', crit: ['exp'] }, claims), NOW)).toEqual({
      ok: false,
      reason: 'unsupported_algorithm',
    });
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256', typ: 'at+jwt' }, claims), NOW)).toEqual({
      ok: false,
      reason: 'unsupported_algorithm',
    });
  });

  it('refuses a genuinely RS256-signed token', async () => {
    expect(await verifyJwt(KEY, rs256(claims), NOW)).toEqual({ ok: false, reason: 'unsupported_algorithm' });
  });

  it('refuses an expired or future-dated token', async () => {
    const token = await signJwt(KEY, claims);
    expect(await verifyJwt(KEY, token, NOW + 3600)).toEqual({ ok: false, reason: 'expired' });
    expect(await verifyJwt(KEY, token, NOW + 3599)).toMatchObject({ ok: true });
    expect(await verifyJwt(KEY, token, NOW - 60)).toMatchObject({ ok: true });
    expect(await verifyJwt(KEY, token, NOW - 61)).toEqual({ ok: false, reason: 'not_yet_valid' });
  });

  it('refuses malformed tokens without throwing', async () => {
    for (const token of ['', 'a.b', 'a.b.c.d', '..', '!!.@@.##']) {
      expect(await verifyJwt(KEY, token, NOW)).toEqual({ ok: false, reason: 'malformed' });
    }
    const notJson = `${b64({ alg: 'HS256' })}.bm90IGpzb24`;
    expect(await verifyJwt(KEY, `${notJson}.sig`, NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    const signedNotJson = `${notJson}.${createHmac('sha256', KEY).update(notJson).digest('base64url')}`;
    expect(await verifyJwt(KEY, signedNotJson, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256' }, { sub: 'x' }), NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256' }, { ...claims, exp: 'later' }), NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(await verifyJwt(KEY, handMade({ alg: 'HS256' }, [1, 2]), NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });
});
