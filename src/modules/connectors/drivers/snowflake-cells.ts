import { DeclaredText } from '../formats/records';
import { instantText, sqlCell } from './sql-common';

export interface SnowflakeColumn {
  getName(): string;
  getType(): string;
  getScale(): number;
}

/** snowflake-sdk's date and timestamp values: a Date that also carries the exact instant. */
interface SfDate {
  getEpochSeconds(): number;
  getNanoSeconds(): number;
}

interface SfTime {
  getMidnightSeconds(): number;
  getNanoSeconds(): number;
}

const TEXT_TYPES = new Set(['text', 'variant', 'object', 'array', 'map']);

function hasMethod<T>(value: unknown, name: keyof T): value is T {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name as string] === 'function'
  );
}

/** A Snowflake value as a cell: dates and times from the exact epoch seconds and nanos (the Date keeps only ms). */
export function snowflakeCell(value: unknown, column: SnowflakeColumn | undefined): unknown {
  if (value === null || value === undefined || column === undefined) return sqlCell(value);
  const type = column.getType();
  if (type === 'date' && hasMethod<SfDate>(value, 'getEpochSeconds')) {
    return new Date(value.getEpochSeconds() * 1000).toISOString().slice(0, 10);
  }
  if (type.startsWith('timestamp') && hasMethod<SfDate>(value, 'getEpochSeconds')) {
    return instantText(value.getEpochSeconds(), value.getNanoSeconds(), column.getScale());
  }
  if (type === 'time' && hasMethod<SfTime>(value, 'getMidnightSeconds')) {
    const text = instantText(value.getMidnightSeconds(), value.getNanoSeconds(), column.getScale());
    return new DeclaredText(text.slice(11, -1));
  }
  return sqlCell(value, !TEXT_TYPES.has(type));
}

export function snowflakeRecord(
  row: Record<string, unknown>,
  columns: ReadonlyMap<string, SnowflakeColumn>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = snowflakeCell(value, columns.get(key));
  return out;
}
