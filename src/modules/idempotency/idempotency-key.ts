import { AppError } from '../../common/errors';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

function refuse(problem: string): AppError {
  return new AppError(
    'invalid_idempotency_key',
    `Idempotency-Key ${problem}: send 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, e.g. a UUID.`,
  );
}

/** The content of an RFC 8941 sf-string (`"…"`, with `\"` and `\\` the only escapes), or undefined if it is not one. */
function unquoteSfString(value: string): string | undefined {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < value.length - 1; i++) {
    const c = value[i];
    if (c === '"') return undefined;
    if (c === '\\') {
      const next = value[++i];
      if (i >= value.length - 1 || (next !== '"' && next !== '\\')) return undefined;
      out += next;
    } else {
      out += c;
    }
  }
  return out;
}

// draft-ietf-httpapi-idempotency-key-header makes the field an sf-string; most clients send the bare value, so both
// mean the same key.
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw refuse('is sent more than once');
  const raw = header.trim();
  const key = raw.startsWith('"') ? unquoteSfString(raw) : raw;
  if (key === undefined) throw refuse('is not a well-formed quoted string');
  if (key.length === 0) throw refuse('is empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw refuse(`is ${key.length} characters long, over the limit of ${MAX_IDEMPOTENCY_KEY_LENGTH}`);
  }
  if (!PRINTABLE_ASCII.test(key)) throw refuse('holds a character that is not printable ASCII');
  return key;
}
