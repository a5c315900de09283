import { hashPassword, hmacSha256Hex, randomToken, safeEqual, verifyPassword } from '../../src/common/crypto';

describe('password hashing (scrypt)', () => {
  it('hashes with a per-user salt and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('treats malformed or hostile stored hashes as a mismatch', async () => {
    for (const stored of [
      '',
      'plain',
      'bcrypt$x',
      'scrypt$1$1$1$aa$bb',
      `scrypt$${2 ** 30}$8$1$AAAA$${'A'.repeat(43)}`,
    ]) {
      expect(await verifyPassword('anything at all', stored)).toBe(false);
    }
  });

  it('normalizes Unicode so the same password typed differently matches', async () => {
    const stored = await hashPassword('caf\u00e9 au lait please');
    expect(await verifyPassword('cafe\u0301 au lait please', stored)).toBe(true);
  });
});

describe('keyed hashes and tokens', () => {
  it('HMAC-SHA256 depends on the key', () => {
    const value = 'dsk_live_example';
    expect(hmacSha256Hex(Buffer.from('k1'), value)).toMatch(/^[0-9a-f]{64}$/);
    expect(hmacSha256Hex(Buffer.from('k1'), value)).not.toBe(hmacSha256Hex(Buffer.from('k2'), value));
  });

  it('makes URL-safe random tokens and compares in constant time', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(randomToken());
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
