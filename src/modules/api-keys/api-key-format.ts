import { randomToken } from '../../common/crypto';

/** `<prefix>_live_<secret>` or `_test_`; the secret is 32 random bytes in base64url (43 characters). */
const KEY_PATTERN = /^([A-Za-z0-9]{1,32})_(live|test)_([A-Za-z0-9_-]{43})$/;
/** Anything that starts like a key is treated as one (and then must parse), never as a session token. */
const KEY_SHAPE = /^[A-Za-z0-9]{1,32}_(live|test)_/;

export const KEY_PREFIX_LENGTH = 12;

export interface ParsedApiKey {
  readonly prefix: string;
  readonly mode: 'live' | 'test';
  readonly secret: string;
}

export function generateApiKey(prefix: string, mode: 'live' | 'test' = 'live'): string {
  if (!/^[A-Za-z0-9]{1,32}$/.test(prefix)) throw new Error(`Invalid API key prefix "${prefix}".`);
  return `${prefix}_${mode}_${randomToken(32)}`;
}

export function parseApiKey(value: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(value);
  if (!match) return undefined;
  return { prefix: match[1], mode: match[2] as 'live' | 'test', secret: match[3] };
}

export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** The only key material ever shown after creation. */
export function keyPrefixOf(rawKey: string): string {
  return rawKey.slice(0, KEY_PREFIX_LENGTH);
}
