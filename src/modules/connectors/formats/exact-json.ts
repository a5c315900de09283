/** A run that only a number of more than 15 digits (or a long dotted run) contains: the cheap test for the slow path. */
const LONG_NUMBER = /[0-9.]{16}/;
const INTEGER = /^-?\d+$/;

interface ReviverContext {
  readonly source?: string;
}

/** True when the double JSON.parse made of `source` reads back as the same decimal number. */
function isExact(value: number, source: string): boolean {
  if (!Number.isFinite(value)) return false;
  if (INTEGER.test(source)) return Number.isSafeInteger(value);
  const mantissa = source.replace(/^-/, '').replace(/[eE].*$/, '');
  const point = mantissa.indexOf('.');
  let digits = mantissa.replace('.', '').replace(/^0+/, '');
  if (point !== -1) digits = digits.replace(/0+$/, '');
  return digits.length <= 15;
}

function keepExact(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return isExact(value, context.source) ? value : context.source;
}

/**
 * JSON.parse, except that a number a double cannot hold exactly (an integer beyond 2^53, a decimal of more than 15
 * significant digits, 1e999) is kept as the text of its digits: `9007199254740993` stays `"9007199254740993"`, never
 * 9007199254740992. The reviver (which reads each number's source) runs only when the text has such a run of digits.
 */
export function parseExactJson(text: string): unknown {
  if (!LONG_NUMBER.test(text) && !/[eE][+-]?\d{3}/.test(text)) return JSON.parse(text) as unknown;
  return JSON.parse(text, keepExact) as unknown;
}
