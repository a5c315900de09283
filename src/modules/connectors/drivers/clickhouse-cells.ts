import { emptyRecord, ParsedRecord } from '../formats/records';
import { sqlCell } from './sql-common';

/**
 * The rules below rely on these: JSON.parse would round unquoted wide numbers, unquoted nan/inf are written as null,
 * and ISO DateTime text is UTC whatever the server's or the column's zone.
 */
export const CLICKHOUSE_READ_SETTINGS = {
  readonly: '2',
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  output_format_json_quote_denormals: 1,
  output_format_decimal_trailing_zeros: 1,
  date_time_output_format: 'iso',
} as const;

export const CLICKHOUSE_TYPED_FORMAT = 'JSONCompactEachRowWithNamesAndTypes';

type CellRule = (value: unknown) => unknown;

const byShape: CellRule = (value) => sqlCell(value);
const asText: CellRule = (value) => sqlCell(value, false);

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

export function clickhouseBaseType(type: string): string {
  let inner = type.trim();
  for (;;) {
    const wrapped = WRAPPER.exec(inner) ?? SIMPLE_AGGREGATE.exec(inner);
    if (!wrapped) break;
    inner = wrapped[1].trim();
  }
  return /^\w+/.exec(inner)?.[0] ?? inner;
}

/** Any type without a rule (String, UUID, Enum, IPv6, Array, Map, JSON…) is declared text, a composite its JSON. */
export function clickhouseCellRule(type: string): CellRule {
  return RULES[clickhouseBaseType(type)] ?? asText;
}

export class ClickhouseTypedRows {
  private names: readonly string[] | undefined;
  private rules: readonly CellRule[] | undefined;

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
