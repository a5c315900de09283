import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest. A sealed value is `sb1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts): the
 * key id (first 8 bytes of SHA-256 of the key) tells which key sealed it, so a wrong key is reported as such, and the
 * caller's associated data (e.g. `provider-key:<org>:<backend>`) binds the ciphertext to its row.
 */
const VERSION = 'sb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_BOX_KEY_BYTES = 32;

export class SecretBoxError extends Error {
  constructor(
    readonly reason: 'wrong_key' | 'malformed' | 'tampered',
    message: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export function secretBoxKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 8).toString('base64url');
}

function assertKey(key: Buffer): void {
  if (key.length !== SECRET_BOX_KEY_BYTES) throw new Error(`a secret-box key must be ${SECRET_BOX_KEY_BYTES} bytes`);
}

export function sealSecret(key: Buffer, plaintext: string, associatedData: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, secretBoxKeyId(key), iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The key id a sealed value names, or undefined when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split('.');
  return parts.length === 5 && parts[0] === VERSION ? parts[1] : undefined;
}

export function openSecret(key: Buffer, sealed: string, associatedData: string): string {
  assertKey(key);
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('malformed', 'not a sealed secret');
  if (parts[1] !== secretBoxKeyId(key)) {
    throw new SecretBoxError('wrong_key', 'the secret was sealed with a different key');
  }
  const [iv, ciphertext, tag] = parts.slice(2).map((p) => Buffer.from(p, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('malformed', 'not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('tampered', 'the sealed secret failed authentication');
  }
}
