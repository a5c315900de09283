import { AppError } from '../errors';

// SQLite stores U+0000 and PostgreSQL refuses it in every text column: without this rule a request would be accepted on
// one store and fail on the other.
const PROBLEM = 'contains the character U+0000, which no text in this API may hold';

const ESCAPE = Buffer.from('\\u0000');
const BACKSLASH = 0x5c;

/** A raw NUL is not valid JSON; `\\u0000` is an escaped backslash and text "u0000". */
export function jsonHasNulEscape(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(ESCAPE); at !== -1; at = bytes.indexOf(ESCAPE, at + 1)) {
    let backslashes = 1;
    while (at - backslashes >= 0 && bytes[at - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 1) return true;
  }
  return false;
}

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

export function nulInBodyError(body: unknown): AppError {
  const found = pathToNul(body, '') ?? { field: 'body', inKey: false };
  return AppError.validation([
    { field: found.field, problem: found.inKey ? `has a key that ${PROBLEM}` : PROBLEM },
  ]);
}

export function urlHasNul(url: string): boolean {
  return url.includes('%00');
}

/** Refused before routing, so 400 for any operation rather than a validation failure. */
export function nulInUrlError(): AppError {
  return new AppError(
    'malformed_request',
    'The request URL contains the character U+0000 (%00), which no text in this API may hold.',
  );
}
