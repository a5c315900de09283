import { createHmac, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export const SECRET_PREFIX = 'whsec_';

export interface SigningSecrets {
  readonly current: string;
  readonly previous?: string;
}

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

interface SecretKeys {
  readonly body: KeyObject;
  readonly standard: KeyObject;
}

/** Two per organization signing at the moment; a key made from bytes is checked and copied on every use. */
const keptKeys = new LRUCache<string, SecretKeys>({ max: 1024 });

function keysOf(secret: string): SecretKeys {
  let keys = keptKeys.get(secret);
  if (!keys) {
    const standard = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
    keys = {
      body: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(Buffer.from(standard, 'base64')),
    };
    keptKeys.set(secret, keys);
  }
  return keys;
}

/** `sha256=<hex>`: HMAC-SHA256 of the raw body keyed by the UTF-8 bytes of the whole `whsec_...` string. */
export function bodySignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', keysOf(secret).body).update(body).digest('hex')}`;
}

/** Standard Webhooks `v1,<base64>`: HMAC-SHA256 over `id.timestamp.body`, keyed by the base64-decoded secret. */
export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', keysOf(secret).standard)
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeadersInput {
  readonly id: string;
  readonly timestamp: number;
  readonly event: string;
  readonly body: string;
  readonly secrets: SigningSecrets;
}

/** `webhook-signature` carries both secrets' signatures, as Standard Webhooks specifies for rotation. */
export function signedHeaders(input: SignedHeadersInput): Record<string, string> {
  const { id, timestamp, body, secrets } = input;
  const all = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  const headers: Record<string, string> = {
    'x-webhook-event': input.event,
    'x-webhook-signature': bodySignature(secrets.current, body),
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': all.map((secret) => standardSignature(secret, id, timestamp, body)).join(' '),
  };
  if (secrets.previous) headers['x-webhook-signature-previous'] = bodySignature(secrets.previous, body);
  return headers;
}
