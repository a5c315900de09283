import { createPublicKey, KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdOf } from '../../common/crypto/ed25519-key';

export interface TrustedKey {
  readonly kid: string;
  readonly key: KeyObject;
  readonly source: string;
}

export function readEd25519PublicKey(file: string): KeyObject {
  const key = createPublicKey(readFileSync(file));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 public key`);
  return key;
}

export interface TrustedKeyScan {
  readonly keys: TrustedKey[];
  readonly problems: { file: string; reason: string }[];
}

/** Every `*.pem` of the trusted-keys directory; unreadable files are reported, not trusted. */
export function scanTrustedKeys(dir: string): TrustedKeyScan {
  const keys: TrustedKey[] = [];
  const problems: TrustedKeyScan['problems'] = [];
  if (!existsSync(dir)) return { keys, problems };
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.pem'))
    .sort()) {
    const file = join(dir, name);
    try {
      const key = readEd25519PublicKey(file);
      keys.push({ kid: keyIdOf(key), key, source: file });
    } catch (error) {
      problems.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { keys, problems };
}
