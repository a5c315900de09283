import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { keyIdOf, loadOrCreateEd25519Key } from '../../src/common/crypto/ed25519-key';
import { raceInProcesses } from '../support/racing-processes';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'ds-ed25519-'));

describe('loadOrCreateEd25519Key', () => {
  it('creates a 0600 PKCS#8 key (and its 0700 directory) once, then loads the same key', () => {
    const file = join(tempDir(), 'keys', 'signer.pem');
    const first = loadOrCreateEd25519Key(file);
    expect(first.created).toBe(true);
    expect(first.privateKey.asymmetricKeyType).toBe('ed25519');
    expect(first.kid).toBe(keyIdOf(first.publicKey));
    expect(first.kid).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);

    const again = loadOrCreateEd25519Key(file);
    expect(again.created).toBe(false);
    expect(again.kid).toBe(first.kid);
    expect(readdirSync(join(file, '..'))).toEqual(['signer.pem']);
  });

  it('refuses a file holding another kind of key', () => {
    const file = join(tempDir(), 'rsa.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    expect(() => loadOrCreateEd25519Key(file)).toThrow(`${file} is not an Ed25519 private key`);
  });

  it('gives processes that create the key at the same moment one and the same key', async () => {
    const helper = resolve(__dirname, '../../src/common/crypto/ed25519-key.ts');
    for (let round = 0; round < 3; round += 1) {
      const dir = tempDir();
      const file = join(dir, 'keys', 'signer.pem');
      const outcomes = await raceInProcesses(helper, 'loadOrCreateEd25519Key', file, 4);
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true]);
      const kids = outcomes.map((o) => (o.ok ? (o.value as { kid: string }).kid : o.error));
      expect(new Set(kids)).toEqual(new Set([loadOrCreateEd25519Key(file).kid]));
      const created = outcomes.filter((o) => o.ok && (o.value as { created: boolean }).created);
      expect(created).toHaveLength(1);
      expect(readdirSync(join(dir, 'keys'))).toEqual(['signer.pem']);
    }
  });
});
