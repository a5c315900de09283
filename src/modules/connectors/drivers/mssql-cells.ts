import { sqlCell } from './sql-common';

/** The mssql type functions a column's metadata names (`sql.Date`, `sql.Time`), compared by identity. */
export interface MssqlTemporalTypes {
  readonly Date: unknown;
  readonly Time: unknown;
}

export type MssqlColumns = Readonly<Record<string, { readonly type?: unknown }>>;

/**
 * A SQL Server row as cells. tedious (useUTC) gives a DATE as a Date at UTC midnight and a TIME as a Date on
 * 1970-01-01, which a dataset would take for timestamps: they become `YYYY-MM-DD` and `HH:MM:SS.fff`. DATETIME2 is
 * read as UTC and DATETIMEOFFSET as its instant, both stored in UTC by sqlCell.
 */
export function mssqlRecord(
  row: Record<string, unknown>,
  columns: MssqlColumns | undefined,
  types: MssqlTemporalTypes,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const type = columns?.[key]?.type;
    if (value instanceof Date && !Number.isNaN(value.getTime()) && type === types.Date) {
      out[key] = value.toISOString().slice(0, 10);
    } else if (value instanceof Date && !Number.isNaN(value.getTime()) && type === types.Time) {
      out[key] = value.toISOString().slice(11, 23);
    } else {
      out[key] = sqlCell(value);
    }
  }
  return out;
}
