import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const VERSION = 'sv1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DATA_KEY_FILE = 'data-key.b64';

export interface SecretVaultKeys {
  readonly configured?: Buffer;
  readonly keysDir: string;
}

export class SecretVaultError extends Error {}

/** The first 8 hex characters of the key's SHA-256: tells which key sealed a value without revealing it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

// A sealed value names its key (`sv1:<key id>:…`), so values stay readable when the configured key replaces the
// generated one. `aad` binds a value to its row and column.
export class SecretVault {
  private readonly keys = new Map<string, Buffer>();
  private readonly sealing: Buffer;

  constructor(private readonly source: SecretVaultKeys) {
    const fileKey = this.fileKey(source.configured === undefined);
    if (fileKey) this.keys.set(keyId(fileKey), fileKey);
    if (source.configured) this.keys.set(keyId(source.configured), source.configured);
    this.sealing = source.configured ?? (fileKey as Buffer);
  }

  get hasConfiguredKey(): boolean {
    return this.source.configured !== undefined;
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealing, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const packed = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
    return `${VERSION}:${keyId(this.sealing)}:${packed}`;
  }

  open(sealed: string, aad: string): string {
    const [version, kid, packed, extra] = sealed.split(':');
    if (version !== VERSION || !kid || !packed || extra !== undefined)
      throw new SecretVaultError('not a sealed value');
    const key = this.keys.get(kid);
    if (!key) throw new SecretVaultError(`sealed with key ${kid}, which is not available`);
    const bytes = Buffer.from(packed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretVaultError('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretVaultError('sealed value does not authenticate (wrong key, row or tampering)');
    }
  }

  private fileKey(create: boolean): Buffer | undefined {
    const file = join(this.source.keysDir, DATA_KEY_FILE);
    if (existsSync(file)) {
      const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new SecretVaultError(`${file} does not hold a 32-byte base64 key`);
      return key;
    }
    if (!create) return undefined;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  }
}
