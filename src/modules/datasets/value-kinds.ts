import { DeclaredText } from '../connectors/connectors.types';

export const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date', 'timestamp'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const KIND_INTEGER = 1;
export const KIND_NUMBER = 2;
export const KIND_STRING = 4;
export const KIND_BOOLEAN = 8;
export const KIND_DATE = 16;
export const KIND_TIMESTAMP = 32;
/** A number a double cannot hold (beyond ±2^53, more than 15 significant digits): kept as the text of its digits. */
export const KIND_EXACT_INTEGER = 64;
export const KIND_EXACT_DECIMAL = 128;

export const EXACT_NUMERICS = ['integer', 'decimal'] as const;
export type ExactNumeric = (typeof EXACT_NUMERICS)[number];

export type StoredValue = number | string | null;

const DATE_TEXT = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const TIMESTAMP_TEXT =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$/;
const TIMESTAMP_PARTS =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** Reused for every value of an ingest (the kind in a field, not a returned pair): the hot loop allocates nothing. */
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

  /** Exact like Number(): digits below 2^53 over an exact power of ten, and one IEEE division is correctly rounded. */
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

const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** At most this many significant digits survive the trip decimal → double → decimal unchanged. */
const EXACT_DIGITS = 15;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Past 15 significant digits a number stays text: an 18-digit identifier must not lose its last digits. */
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

/** Leading zeros (`007…`) mark an identifier, not a number. */
function exactNumberKind(text: string): number {
  if (EXACT_INTEGER_TEXT.test(text)) return KIND_EXACT_INTEGER;
  return EXACT_DECIMAL_TEXT.test(text) ? KIND_EXACT_DECIMAL : 0;
}

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

/** A value without an offset is read as UTC, never in the host's zone (determinism whatever TZ). */
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

export function exactNumericOfKinds(mask: number): ExactNumeric | undefined {
  if ((mask & EXACT_KINDS) === 0 || (mask & ~NUMERIC_KINDS) !== 0) return undefined;
  return (mask & ~(KIND_INTEGER | KIND_EXACT_INTEGER)) === 0 ? 'integer' : 'decimal';
}

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
