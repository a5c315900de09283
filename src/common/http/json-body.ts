import { AppError } from '../errors';

/** Only run after JSON.parse failed: V8's message names no position for an unexpected token. */
export function syntaxErrorOffset(text: string): number {
  let i = 0;
  const stop = (): never => {
    throw new SyntaxStop();
  };
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r'))
      i++;
  };
  const expect = (char: string): void => {
    skipSpace();
    if (text[i] !== char) stop();
    i++;
  };
  const string = (): void => {
    expect('"');
    for (;;) {
      if (i >= text.length || text.charCodeAt(i) < 0x20) stop();
      const char = text[i];
      if (char === '"') return void i++;
      if (char !== '\\') {
        i++;
        continue;
      }
      i++;
      if (text[i] === 'u') {
        for (let k = 1; k <= 4; k++) {
          if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
            i += k;
            stop();
          }
        }
        i += 5;
      } else if (i < text.length && '"\\/bfnrt'.includes(text[i])) i++;
      else stop();
    }
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (): void => {
    skipSpace();
    const char = text[i];
    if (char === '{') return members('}', () => (string(), expect(':'), value()));
    if (char === '[') return members(']', value);
    if (char === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) return void (i += literal.length);
    }
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) stop();
    i = NUMBER.lastIndex;
  };
  const members = (close: string, member: () => void): void => {
    i++;
    skipSpace();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === close) return void i++;
      else stop();
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) stop();
  } catch (error) {
    if (!(error instanceof SyntaxStop)) throw error;
  }
  return Math.min(i, text.length);
}

class SyntaxStop extends Error {}

function malformed(text: string): AppError {
  const offset = syntaxErrorOffset(text);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const where = `at position ${offset} (line ${line}, column ${column})`;
  return new AppError(
    'invalid_json',
    offset >= text.length
      ? `The request body is not valid JSON: it ends too early, ${where}.`
      : `The request body is not valid JSON: unexpected ${JSON.stringify(text[offset])} ${where}.`,
  );
}

/** Keys that could reach `Object.prototype` in code that copies the body; any escape might spell one. */
const MAY_POISON = /__proto__|constructor|\\u/;
const POLLUTION =
  'code that copies the body could change the prototype of every object (prototype pollution)';

function refusedKey(value: unknown, path = ''): { field: string; problem: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = refusedKey(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const field = path === '' ? key : `${path}.${key}`;
    if (key === '__proto__') return { field, problem: `is a "__proto__" key, refused: ${POLLUTION}` };
    if (
      key === 'constructor' &&
      typeof child === 'object' &&
      child !== null &&
      Object.hasOwn(child, 'prototype')
    )
      return { field, problem: `is a "constructor" key holding "prototype", refused: ${POLLUTION}` };
    const found = refusedKey(child, field);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0)
    throw new AppError('invalid_json', 'The request body is empty but declared as JSON.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(text);
  }
  const refused = MAY_POISON.test(text) ? refusedKey(value) : undefined;
  if (refused !== undefined) {
    throw new AppError(
      'invalid_json',
      `The request body has a key that is refused: ${refused.field} ${refused.problem}.`,
      [refused],
    );
  }
  return value;
}
