import type { FileMetaData, ParquetParsers, SchemaElement } from 'hyparquet';
import { ConnectorError } from '../connector-error';
import { parseExactJson } from './exact-json';

/** Significant digits a double keeps exactly; a DECIMAL of higher precision is read as its digits. */
const EXACT_PRECISION = 15;
const DAY_MS = 86_400_000;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Dates as `YYYY-MM-DD` and micro/nanosecond timestamps as full-precision text (a Date would lose both). */
export const EXACT_PARSERS: Partial<ParquetParsers> = {
  dateFromDays: (days: number) => new Date(days * DAY_MS).toISOString().slice(0, 10),
  timestampFromMicroseconds: (micros: bigint) => timestampText(micros, 6),
  timestampFromNanoseconds: (nanos: bigint) => timestampText(nanos, 9),
  jsonFromBytes: (bytes: Uint8Array) => parseExactJson(new TextDecoder().decode(bytes)),
};

/** An unannotated BYTE_ARRAY: text when UTF-8 (older writers' strings), else the bytes, never replacement chars. */
export function bytesOrText(value: unknown): unknown {
  if (!(value instanceof Uint8Array)) return value;
  try {
    return UTF8.decode(value);
  } catch {
    return value;
  }
}

function timestampText(units: bigint, digits: number): string {
  const perSecond = 10n ** BigInt(digits);
  let seconds = units / perSecond;
  let fraction = units % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}.${fraction.toString().padStart(digits, '0')}Z`;
}

function decimalScale(element: SchemaElement): { precision: number; scale: number } | undefined {
  const logical = element.logical_type;
  if (logical?.type === 'DECIMAL') return { precision: logical.precision, scale: logical.scale };
  if (element.converted_type === 'DECIMAL')
    return { precision: element.precision ?? 0, scale: element.scale ?? 0 };
  return undefined;
}

export type ExactDecimals = ReadonlyMap<string, number>;

/** hyparquet rounds DECIMALs past 15 digits: top-level ones are read unscaled; nested ones fail the ingest. */
export function exactDecimalReading(metadata: FileMetaData): {
  metadata: FileMetaData;
  decimals: ExactDecimals;
} {
  const decimals = new Map<string, number>();
  const [root, ...elements] = metadata.schema;
  // The schema is a depth-first list: an element is top level when no group above it still has children to come.
  let nestedLeft = 0;
  const schema = [root];
  for (const element of elements) {
    const topLevel = nestedLeft === 0;
    if (!topLevel) nestedLeft--;
    nestedLeft += element.num_children ?? 0;
    const decimal = decimalScale(element);
    if (!decimal || decimal.precision <= EXACT_PRECISION) {
      schema.push(element);
      continue;
    }
    if (!topLevel || (element.type !== 'INT64' && element.type !== 'FIXED_LEN_BYTE_ARRAY')) {
      throw new ConnectorError(
        'invalid_payload',
        `The Parquet column "${element.name}" is DECIMAL(${decimal.precision},${decimal.scale}) ${topLevel ? `stored as ${element.type}` : 'inside a group'}: its values cannot be read exactly.`,
      );
    }
    decimals.set(element.name, decimal.scale);
    schema.push({ ...element, converted_type: undefined, logical_type: undefined });
  }
  return { metadata: decimals.size === 0 ? metadata : { ...metadata, schema }, decimals };
}

export function decimalText(raw: unknown, scale: number): unknown {
  let unscaled: bigint;
  if (typeof raw === 'bigint') unscaled = raw;
  else if (raw instanceof Uint8Array) {
    unscaled = 0n;
    for (const byte of raw) unscaled = unscaled * 256n + BigInt(byte);
    if (raw.length > 0 && raw[0] >= 0x80) unscaled -= 1n << BigInt(raw.length * 8);
  } else return raw;
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const text = scale === 0 ? whole : `${whole}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}
