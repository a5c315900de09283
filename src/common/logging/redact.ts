/** Keys whose values are secrets wherever they appear in a logged object. */
const SECRET_KEY =
  /pass(word)?|secret|token|api[_-]?key|authorization|cookie|raw_key|private|credential|connection_string|dsn/i;
const MAX_DEPTH = 8;

export const REDACTED = '[redacted]';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (value instanceof Error) {
    return { type: value.name, message: value.message, stack: value.stack };
  }
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[key] =
      isSecretKey(key) && inner !== undefined && inner !== null ? REDACTED : redactSecrets(inner, depth + 1);
  }
  return out;
}
