import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DATA_KEY_FILE, SecretVault, SecretVaultError } from '../../src/common/crypto/secret-vault';
import { makeTempDir } from '../support/test-app';

describe('SecretVault', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('ds-vault-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a 0600 key file when no key is configured, and round-trips', () => {
    const vault = new SecretVault({ keysDir: dir });
    const sealed = vault.seal('whsec_abc', 'row:1');
    expect(sealed).toMatch(/^sv1:[0-9a-f]{8}:/);
    expect(sealed).not.toContain('whsec_abc');
    expect(vault.open(sealed, 'row:1')).toBe('whsec_abc');
    expect(statSync(join(dir, DATA_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(new SecretVault({ keysDir: dir }).open(sealed, 'row:1')).toBe('whsec_abc');
  });

  it('refuses another row, a flipped byte and an unknown key', () => {
    const vault = new SecretVault({ keysDir: dir });
    const sealed = vault.seal('secret', 'row:1');
    expect(() => vault.open(sealed, 'row:2')).toThrow(SecretVaultError);
    const packed = Buffer.from(sealed.split(':')[2], 'base64');
    packed[packed.length - 1] ^= 1;
    expect(() => vault.open(`sv1:${sealed.split(':')[1]}:${packed.toString('base64')}`, 'row:1')).toThrow(
      SecretVaultError,
    );
    const other = new SecretVault({ keysDir: makeTempDir('ds-vault-other-') });
    expect(() => other.open(sealed, 'row:1')).toThrow(/not available/);
  });

  it('seals with the configured key but still opens values sealed by the file key', () => {
    const before = new SecretVault({ keysDir: dir });
    const old = before.seal('old', 'a');
    const configured = randomBytes(32);
    const after = new SecretVault({ keysDir: dir, configured });
    expect(after.open(old, 'a')).toBe('old');
    const fresh = after.seal('new', 'a');
    expect(fresh.split(':')[1]).not.toBe(old.split(':')[1]);
    expect(new SecretVault({ keysDir: makeTempDir('ds-vault-x-'), configured }).open(fresh, 'a')).toBe('new');
    expect(readFileSync(join(dir, DATA_KEY_FILE), 'utf8').trim()).toHaveLength(44);
  });
});
