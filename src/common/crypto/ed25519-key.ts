import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  randomBytes,
} from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Ed25519Key {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly kid: string;
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

export function readEd25519PrivateKey(file: string): KeyObject {
  const privateKey = createPrivateKey(readFileSync(file));
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
  return privateKey;
}

/** Not `instanceof Error`: errors from node:fs may come from another realm (jest's sandbox). */
function isAlreadyThere(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EEXIST';
}

// Written to a temp file and hard-linked into place: a racing process never reads a half-written key; first wins.
function createIfAbsent(file: string): boolean {
  const { privateKey } = generateKeyPairSync('ed25519');
  const staging = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(staging, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(staging, file);
    return true;
  } catch (error) {
    if (!isAlreadyThere(error)) throw error;
    return false;
  } finally {
    unlinkSync(staging);
  }
}

export function loadOrCreateEd25519Key(file: string): Ed25519Key & { readonly created: boolean } {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const created = !existsSync(file) && createIfAbsent(file);
  chmodSync(file, 0o600);
  const privateKey = readEd25519PrivateKey(file);
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, kid: keyIdOf(publicKey), created };
}
