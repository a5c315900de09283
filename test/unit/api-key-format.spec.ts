import {
  generateApiKey,
  keyPrefixOf,
  looksLikeApiKey,
  parseApiKey,
} from '../../src/modules/api-keys/api-key-format';

describe('API key format', () => {
  it('generates <prefix>_live_<43 base64url characters>, unique each time', () => {
    const a = generateApiKey('dsk');
    const b = generateApiKey('dsk');
    expect(a).toMatch(/^dsk_live_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(parseApiKey(a)).toEqual({ prefix: 'dsk', mode: 'live', secret: a.slice(9) });
    expect(keyPrefixOf(a)).toBe(a.slice(0, 12));
    expect(keyPrefixOf(a)).toHaveLength(12);
  });

  it('parses test keys and refuses anything else', () => {
    const secret = 'A'.repeat(43);
    expect(parseApiKey(`abc_test_${secret}`)).toEqual({ prefix: 'abc', mode: 'test', secret });
    for (const bad of [
      `dsk_prod_${secret}`,
      `dsk_live_${secret}A`,
      `dsk_live_${secret.slice(1)}`,
      `dsk_live_${secret.slice(1)}=`,
      `_live_${secret}`,
      `d-k_live_${secret}`,
      '',
      'eyJhbGciOiJIUzI1NiJ9.e30.sig',
    ]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
  });

  it('tells key-shaped credentials from session tokens', () => {
    expect(looksLikeApiKey('dsk_live_x')).toBe(true);
    expect(looksLikeApiKey('sk_test_')).toBe(true);
    expect(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(false);
    expect(looksLikeApiKey('random')).toBe(false);
  });

  it('refuses a prefix that would break parsing', () => {
    expect(() => generateApiKey('ds_k')).toThrow();
    expect(() => generateApiKey('')).toThrow();
  });
});
