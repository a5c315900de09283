import { AppError } from '../errors';

/**
 * No text in the API may hold U+0000. SQLite would store it and PostgreSQL refuses it in every text column, so
 * without this rule the same request would be accepted on one store and fail with a store error on the other.
 */
const PROBLEM = 'contains the character U+0000, which no text in this API may hold';

const ESCAPE = Buffer.from('\\u0000');
const BACKSLASH = 0x5c;

/**
 * Whether a JSON text writes U+0000 (`\u0000`; a raw NUL is not valid JSON at all). Native search first, so
 * bodies without it cost one pass of memchr-like scanning; `\\u0000` is an escaped backslash and text "u0000".
 */
export function jsonHasNulEscape(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(ESCAPE); at !== -1; at = bytes.indexOf(ESCAPE, at + 1)) {
    let backslashes = 1;
    while (at - backslashes >= 0 && bytes[at - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 1) return true;
  }
  return false;
}

/** The dotted path of the first string or object key holding U+0000, as validation details name fields. */
function pathToNul(value: unknown, path: string): { field: string; inKey: boolean } | undefined {
  if (typeof value === 'string') return value.includes('\0') ? { field: path, inKey: false } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = path === '' ? key : `${path}.${key}`;
    if (key.includes('\0')) return { field: path === '' ? 'body' : path, inKey: true };
    const found = pathToNul(item, itemPath);
    if (found) return found;
  }
  return undefined;
}

/** The 422 for a parsed body that holds U+0000 somewhere. */
export function nulInBodyError(body: unknown): AppError {
  const found = pathToNul(body, '') ?? { field: 'body', inKey: false };
  return AppError.validation([
    { field: found.field, problem: found.inKey ? `has a key that ${PROBLEM}` : PROBLEM },
  ]);
}

/** Whether a request target carries U+0000 percent-encoded (path or query). */
export function urlHasNul(url: string): boolean {
  return url.includes('%00');
}

/** A malformed request (400, any operation) rather than a validation failure: it is refused before routing. */
export function nulInUrlError(): AppError {
  return new AppError(
    'malformed_request',
    'The request URL contains the character U+0000 (%00), which no text in this API may hold.',
  );
}
