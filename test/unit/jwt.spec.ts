import { createHmac } from 'node:crypto';
import { signJwt, verifyJwt } from '../../src/common/crypto';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef');
const NOW = 1_800_000_000;
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function handMade(header: unknown, claims: unknown, key = KEY): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

describe('HS256 session tokens', () => {
  const claims = { sub: 'usr_1', sid: 'ses_1', iat: NOW, exp: NOW + 3600 };

  it('round-trips claims', () => {
    const result = verifyJwt(KEY, signJwt(KEY, claims), NOW + 10);
    expect(result).toEqual({ ok: true, claims });
  });

  it('refuses a tampered payload or signature', () => {
    const [h, , s] = signJwt(KEY, claims).split('.');
    expect(verifyJwt(KEY, `${h}.${b64({ ...claims, sub: 'usr_2' })}.${s}`, NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyJwt(KEY, `${h}.${b64(claims)}.${s.slice(1)}A`, NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyJwt(Buffer.from('another key of 32 bytes........!'), signJwt(KEY, claims), NOW)).toMatchObject({ ok: false });
  });

  it('refuses alg none and every algorithm but HS256, before checking the signature', () => {
    expect(verifyJwt(KEY, `${b64({ alg: 'none' })}.${b64(claims)}.`, NOW)).toEqual({ ok: false, reason: 'unsupported_algorithm' });
    const noneWithSig = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.AAAA`;
    expect(verifyJwt(KEY, noneWithSig, NOW)).toEqual({ ok: false, reason: 'unsupported_algorithm' });
    for (const alg of ['HS384', 'HS512', 'RS256', 'EdDSA', 'hs256', undefined]) {
      expect(verifyJwt(KEY, handMade({ alg, typ: 'JWT' }, claims), NOW)).toEqual({ ok: false, reason: 'unsupported_algorithm' });
    }
    expect(verifyJwt(KEY, handMade({ alg: 'HS256', crit: ['exp'] }, claims), NOW)).toMatchObject({ ok: false });
  });

  it('refuses an expired or future-dated token', () => {
    const token = signJwt(KEY, claims);
    expect(verifyJwt(KEY, token, NOW + 3600)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyJwt(KEY, token, NOW + 3599)).toMatchObject({ ok: true });
    expect(verifyJwt(KEY, token, NOW - 3600)).toEqual({ ok: false, reason: 'not_yet_valid' });
  });

  it('refuses malformed tokens without throwing', () => {
    for (const token of ['', 'a.b', 'a.b.c.d', '..', '!!.@@.##', `${b64({ alg: 'HS256' })}.not-json.sig`]) {
      expect(verifyJwt(KEY, token, NOW)).toMatchObject({ ok: false });
    }
    expect(verifyJwt(KEY, handMade({ alg: 'HS256' }, { sub: 'x' }), NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyJwt(KEY, handMade({ alg: 'HS256' }, [1, 2]), NOW)).toEqual({ ok: false, reason: 'malformed' });
  });
});
