import { emptyRecord, ParsedRecord } from '../formats/records';
import { sqlCell } from './sql-common';

/**
 * The settings every read runs with, which the cell rules below rely on: read-only; 64-bit and wider integers and
 * decimals quoted (JSON.parse would round them) with their trailing zeros; nan and inf quoted (unquoted they are
 * written as null); DateTime as ISO text in UTC whatever the server's or the column's zone.
 */
export const CLICKHOUSE_READ_SETTINGS = {
  readonly: '2',
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  output_format_json_quote_denormals: 1,
  output_format_decimal_trailing_zeros: 1,
  date_time_output_format: 'iso',
} as const;

/** The format whose first two rows name the result's columns and their ClickHouse types. */
export const CLICKHOUSE_TYPED_FORMAT = 'JSONCompactEachRowWithNamesAndTypes';

type CellRule = (value: unknown) => unknown;

const byShape: CellRule = (value) => sqlCell(value);
const asText: CellRule = (value) => sqlCell(value, false);

/** Quoted `nan`, `-nan`, `inf`, `+inf`, `-inf` become the NaN and infinities every other source gives. */
const float: CellRule = (value) => {
  if (typeof value !== 'string') return sqlCell(value);
  if (/nan$/i.test(value)) return sqlCell(Number.NaN);
  return sqlCell(value.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY);
};

const RULES: Readonly<Record<string, CellRule>> = {
  Date: byShape,
  Date32: byShape,
  DateTime: byShape,
  DateTime64: byShape,
  Decimal: byShape,
  Decimal32: byShape,
  Decimal64: byShape,
  Decimal128: byShape,
  Decimal256: byShape,
  Int64: byShape,
  UInt64: byShape,
  Int128: byShape,
  UInt128: byShape,
  Int256: byShape,
  UInt256: byShape,
  Float32: float,
  Float64: float,
  BFloat16: float,
};

const WRAPPER = /^(?:Nullable|LowCardinality)\((.*)\)$/s;
const SIMPLE_AGGREGATE = /^SimpleAggregateFunction\([^,]*,\s*(.*)\)$/s;

/** `LowCardinality(Nullable(DateTime64(3, 'Asia/Kolkata')))` → `DateTime64`: the wrappers change no value. */
export function clickhouseBaseType(type: string): string {
  let inner = type.trim();
  for (;;) {
    const wrapped = WRAPPER.exec(inner) ?? SIMPLE_AGGREGATE.exec(inner);
    if (!wrapped) break;
    inner = wrapped[1].trim();
  }
  return /^\w+/.exec(inner)?.[0] ?? inner;
}

/**
 * A ClickHouse value as a cell, by its column's type: dates, instants, wide integers and decimals are read by their
 * shape; 8- to 32-bit integers and booleans are JSON values already; any other type (String, FixedString, UUID,
 * Enum, IPv4/6, Array, Map, Tuple, JSON) is declared text, a composite one its JSON text.
 */
export function clickhouseCellRule(type: string): CellRule {
  return RULES[clickhouseBaseType(type)] ?? asText;
}

/** Turns the rows of {@link CLICKHOUSE_TYPED_FORMAT}, as parsed from each line, into records. */
export class ClickhouseTypedRows {
  private names: readonly string[] | undefined;
  private rules: readonly CellRule[] | undefined;

  /** A data row's record; undefined for the two header rows. */
  read(values: readonly unknown[]): ParsedRecord | undefined {
    if (this.names === undefined) {
      this.names = values.map(String);
      return undefined;
    }
    if (this.rules === undefined) {
      this.rules = values.map((type) => clickhouseCellRule(String(type)));
      return undefined;
    }
    const record = emptyRecord();
    for (let i = 0; i < this.names.length; i++) record[this.names[i]] = this.rules[i](values[i]);
    return record;
  }
}
