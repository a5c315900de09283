import { DeclaredText } from '../connectors/connectors.types';
/** Column types of a dataset (the wire names). */
export const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date', 'timestamp'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** What a single value looked like; a column's type is the join of the kinds of its non-null values. */
export const KIND_INTEGER = 1;
export const KIND_NUMBER = 2;
export const KIND_STRING = 4;
export const KIND_BOOLEAN = 8;
export const KIND_DATE = 16;
export const KIND_TIMESTAMP = 32;
/** A number a double cannot hold (beyond ±2^53, more than 15 significant digits): kept as the text of its digits. */
export const KIND_EXACT_INTEGER = 64;
export const KIND_EXACT_DECIMAL = 128;

/** What the numbers of a column kept as text are: whole numbers only, or any decimal. */
export const EXACT_NUMERICS = ['integer', 'decimal'] as const;
export type ExactNumeric = (typeof EXACT_NUMERICS)[number];

/** A value as stored in a dataset file: numbers, text, booleans as 0/1 (SQLite's own convention), or null. */
export type StoredValue = number | string | null;

const DATE_TEXT = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const TIMESTAMP_TEXT =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$/;
/** The parts of a TIMESTAMP_TEXT: date, time, seconds, fraction digits, offset (`Z`, `+05:30`, `-0400`, `+00`). */
const TIMESTAMP_PARTS =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Converts one source value to its stored form and reports its kind in `kind` (0 for null). One instance is reused
 * for every value of an ingest, so the hot loop allocates nothing per value.
 */
export class ValueClassifier {
  kind = 0;

  convert(raw: unknown): StoredValue {
    switch (typeof raw) {
      case 'string':
        // A typed source (a database, JSON) tells an empty string from a missing value; only text tables do not.
        return raw.length === 0 ? this.text(raw) : this.convertText(raw);
      case 'number':
        if (!Number.isFinite(raw)) return this.text(String(raw));
        this.kind = Number.isInteger(raw) && Number.isSafeInteger(raw) ? KIND_INTEGER : KIND_NUMBER;
        return raw;
      case 'boolean':
        this.kind = KIND_BOOLEAN;
        return raw ? 1 : 0;
      case 'bigint':
        if (raw >= BigInt(Number.MIN_SAFE_INTEGER) && raw <= BigInt(Number.MAX_SAFE_INTEGER)) {
          this.kind = KIND_INTEGER;
          return Number(raw);
        }
        this.kind = KIND_EXACT_INTEGER;
        return raw.toString();
      case 'undefined':
        this.kind = 0;
        return null;
      case 'object':
        if (raw === null) {
          this.kind = 0;
          return null;
        }
        if (raw instanceof DeclaredText) return this.text(raw.text);
        if (raw instanceof Date) {
          if (Number.isNaN(raw.getTime())) return this.text(String(raw));
          this.kind = KIND_TIMESTAMP;
          return raw.toISOString();
        }
        if (Buffer.isBuffer(raw)) return this.text(raw.toString('base64'));
        return this.text(JSON.stringify(raw));
      case 'symbol':
      case 'function':
        return this.text(String(raw));
    }
  }

  /**
   * `convert(text.slice(start, end))` for text, reading plain integers and decimals of at most 15 digits in place:
   * they need no string of their own. Such a decimal is its digits as an integer (exact below 2^53) divided by a
   * power of ten (exact up to 10^22), and one IEEE division is correctly rounded, as `Number()` is.
   */
  convertRange(text: string, start: number, end: number): StoredValue {
    if (end === start) {
      this.kind = 0;
      return null;
    }
    let i = start;
    const negative = text.charCodeAt(i) === 45;
    if (negative) i++;
    const digitsStart = i;
    let mantissa = 0;
    while (i < end) {
      const code = text.charCodeAt(i);
      if (code < 48 || code > 57) break;
      mantissa = mantissa * 10 + (code - 48);
      i++;
    }
    const digits = i - digitsStart;
    // Leading zeros (`007`), more than 15 digits and any other shape take the general path.
    if (digits > 15 || (digits > 1 && text.charCodeAt(digitsStart) === 48)) {
      return this.convertText(text.slice(start, end));
    }
    if (i === end) {
      if (digits === 0) return this.convertText(text.slice(start, end));
      this.kind = KIND_INTEGER;
      return negative ? -mantissa : mantissa;
    }
    if (text.charCodeAt(i) !== 46) return this.convertText(text.slice(start, end));
    const fractionStart = ++i;
    while (i < end) {
      const code = text.charCodeAt(i);
      if (code < 48 || code > 57) break;
      mantissa = mantissa * 10 + (code - 48);
      i++;
    }
    const fraction = i - fractionStart;
    if (i !== end || fraction === 0 || digits + fraction > 15)
      return this.convertText(text.slice(start, end));
    const value = mantissa / POWERS_OF_TEN[fraction];
    this.kind = KIND_NUMBER;
    return negative ? -value : value;
  }

  private text(value: string): string {
    this.kind = KIND_STRING;
    return value;
  }

  /** Text from CSV and similar sources: numbers, booleans, dates and timestamps are recognised by their shape. */
  private convertText(raw: string): StoredValue {
    const length = raw.length;
    if (length === 0) {
      this.kind = 0;
      return null;
    }
    const first = raw.charCodeAt(0);
    if ((first >= 48 && first <= 57) || first === 45 || first === 46) {
      const shape = numberShape(raw);
      if (shape === KIND_INTEGER) {
        this.kind = KIND_INTEGER;
        return Number(raw);
      }
      if (shape === KIND_NUMBER) {
        const value = Number(raw);
        if (Number.isFinite(value)) {
          this.kind = KIND_NUMBER;
          return value;
        }
      }
      if (length === 10 && DATE_TEXT.test(raw)) {
        this.kind = KIND_DATE;
        return raw;
      }
      if (length >= 16 && TIMESTAMP_TEXT.test(raw)) {
        const utc = utcTimestamp(raw);
        if (utc !== undefined) {
          this.kind = KIND_TIMESTAMP;
          return utc;
        }
      }
      const exact = exactNumberKind(raw);
      if (exact !== 0) {
        this.kind = exact;
        return raw;
      }
      return this.text(raw);
    }
    if (length === 4 || length === 5) {
      const lower = raw.toLowerCase();
      if (lower === 'true') {
        this.kind = KIND_BOOLEAN;
        return 1;
      }
      if (lower === 'false') {
        this.kind = KIND_BOOLEAN;
        return 0;
      }
    }
    return this.text(raw);
  }
}

/** Written out: each literal is exactly its power of ten. */
const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** At most this many significant digits survive the trip decimal → double → decimal unchanged. */
const EXACT_DIGITS = 15;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * KIND_INTEGER for `-?(0|[1-9]\d{0,14})`, KIND_NUMBER for a decimal or exponent form
 * `-?(0|[1-9]\d*)?(\.\d+)?([eE][+-]?\d+)?` that is not digits only and has at most 15 significant digits, else 0.
 * Anything longer stays text: an 18-digit identifier or a numeric(38,10) must not lose its last digits. A scan
 * rather than regular expressions: it runs on every value of an ingest.
 */
export function numberShape(text: string): number {
  const length = text.length;
  let i = text.charCodeAt(0) === 45 ? 1 : 0;
  const digitsStart = i;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  const digits = i - digitsStart;
  if (digits > 1 && text.charCodeAt(digitsStart) === 48) return 0;
  if (i === length) return digits > 0 && digits <= EXACT_DIGITS ? KIND_INTEGER : 0;
  if (text.charCodeAt(i) === 46) {
    const fractionStart = ++i;
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    if (i === fractionStart) return 0;
    if (significantDigits(text, digitsStart, i) > EXACT_DIGITS) return 0;
  } else if (digits > EXACT_DIGITS && significantDigits(text, digitsStart, i) > EXACT_DIGITS) {
    return 0;
  }
  const e = text.charCodeAt(i);
  if (i < length && (e === 101 || e === 69)) {
    i++;
    const sign = text.charCodeAt(i);
    if (i < length && (sign === 43 || sign === 45)) i++;
    const exponentStart = i;
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    if (i === exponentStart) return 0;
  }
  return i === length ? KIND_NUMBER : 0;
}

const EXACT_INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
const EXACT_DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * KIND_EXACT_INTEGER or KIND_EXACT_DECIMAL for a number text that numberShape refused (too many digits, or an
 * exponent no double reaches), else 0. Leading zeros (`007…`) mark an identifier, not a number.
 */
function exactNumberKind(text: string): number {
  if (EXACT_INTEGER_TEXT.test(text)) return KIND_EXACT_INTEGER;
  return EXACT_DECIMAL_TEXT.test(text) ? KIND_EXACT_DECIMAL : 0;
}

/** Digits of `text[start, end)` (digits and one point) without leading zeros and the fraction's trailing zeros. */
function significantDigits(text: string, start: number, end: number): number {
  let first = start;
  while (first < end && (text.charCodeAt(first) === 48 || text.charCodeAt(first) === 46)) first++;
  let last = end;
  if (text.indexOf('.', start) !== -1 && text.indexOf('.', start) < end) {
    while (last > first && (text.charCodeAt(last - 1) === 48 || text.charCodeAt(last - 1) === 46)) last--;
  }
  let count = 0;
  for (let i = first; i < last; i++) if (text.charCodeAt(i) !== 46) count++;
  return count;
}

/**
 * A TIMESTAMP_TEXT in the stored form `YYYY-MM-DDTHH:MM:SS.fffZ`: the offset applied (a value without one is read
 * as UTC, never in the host's zone), the fraction's digits kept (at least three, more only when they are not zero).
 * Undefined for a day that does not exist (`2026-02-30`) or a year the shift moves out of 0000–9999.
 */
export function utcTimestamp(text: string): string | undefined {
  const parts = TIMESTAMP_PARTS.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second, fraction, offset, sign, offsetHours, offsetMinutes] =
    parts;
  const wall = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read the years 0–99 as 1900–1999.
  wall.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  wall.setUTCHours(Number(hour), Number(minute), Number(second ?? 0), 0);
  if (wall.getUTCDate() !== Number(day)) return undefined;
  const shiftMinutes =
    offset === undefined || offset === 'Z'
      ? 0
      : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0));
  const moment = new Date(wall.getTime() - shiftMinutes * 60_000);
  const utcYear = moment.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return undefined;
  const digits = (fraction ?? '').replace(/0+$/, '').padEnd(3, '0');
  return `${moment.toISOString().slice(0, 19)}.${digits}Z`;
}

const NUMERIC_KINDS = KIND_INTEGER | KIND_NUMBER | KIND_EXACT_INTEGER | KIND_EXACT_DECIMAL;
const EXACT_KINDS = KIND_EXACT_INTEGER | KIND_EXACT_DECIMAL;

/**
 * For a string column whose values are all numbers, some kept as text because a double cannot hold them: `integer`
 * when every one is whole, else `decimal`. Undefined for every other column.
 */
export function exactNumericOfKinds(mask: number): ExactNumeric | undefined {
  if ((mask & EXACT_KINDS) === 0 || (mask & ~NUMERIC_KINDS) !== 0) return undefined;
  return (mask & ~(KIND_INTEGER | KIND_EXACT_INTEGER)) === 0 ? 'integer' : 'decimal';
}

/** The type of a column from the union of its value kinds: integer+number widen to number, date+timestamp to
 * timestamp, any other mix to string (numbers kept as text among them). A column with no non-null value is a
 * string column. */
export function typeOfKinds(mask: number): ColumnType {
  switch (mask) {
    case 0:
    case KIND_STRING:
      return 'string';
    case KIND_INTEGER:
      return 'integer';
    case KIND_NUMBER:
    case KIND_INTEGER | KIND_NUMBER:
      return 'number';
    case KIND_BOOLEAN:
      return 'boolean';
    case KIND_DATE:
      return 'date';
    case KIND_TIMESTAMP:
    case KIND_DATE | KIND_TIMESTAMP:
      return 'timestamp';
    default:
      return 'string';
  }
}

export function isNumericType(type: ColumnType): boolean {
  return type === 'integer' || type === 'number';
}

export function isTemporalType(type: ColumnType): boolean {
  return type === 'date' || type === 'timestamp';
}

export function isDateText(value: string): boolean {
  return DATE_TEXT.test(value);
}

export function isTimestampText(value: string): boolean {
  return TIMESTAMP_TEXT.test(value);
}
