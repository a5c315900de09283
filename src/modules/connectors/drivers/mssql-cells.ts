import { ConnectorError } from '../connector-error';
import { sqlCell } from './sql-common';

/** The mssql type functions a column's metadata names (`sql.Date`, `sql.Decimal`), compared by identity. */
export interface MssqlColumnTypes {
  readonly Date: unknown;
  readonly Time: unknown;
  readonly Decimal: unknown;
  readonly Numeric: unknown;
  readonly Money: unknown;
  readonly BigInt: unknown;
}

export type MssqlColumns = Readonly<Record<string, { readonly type?: unknown; readonly scale?: number }>>;

/** tedious divides the exact integer by 10^scale; within 15 digits that double is the decimal's nearest. */
const EXACT_DIGITS = 15;

/** tedious reads DECIMAL and MONEY as doubles: past 15 digits the value is already rounded, so the ingest stops. */
function exactDecimal(name: string, value: number, scale: number): number {
  if (Math.abs(value) < 10 ** (EXACT_DIGITS - scale)) return value;
  throw new ConnectorError(
    'invalid_payload',
    `Column "${name}" holds ${value} with more than ${EXACT_DIGITS} significant digits, which SQL Server's driver ` +
      `rounds: cast it to text in the query (CAST("${name}" AS varchar(40))) to keep it exact.`,
  );
}

/**
 * A SQL Server row as cells: tedious gives DATE and TIME as Dates a dataset would take for timestamps, so they
 * become `YYYY-MM-DD` and `HH:MM:SS.fff`; DATETIME2 is UTC and DATETIMEOFFSET its instant.
 */
export function mssqlRecord(
  row: Record<string, unknown>,
  columns: MssqlColumns | undefined,
  types: MssqlColumnTypes,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const column = columns?.[key];
    const type = column?.type;
    if (typeof value === 'number' && Number.isFinite(value) && isDecimalType(type, types)) {
      out[key] = exactDecimal(key, value, type === types.Money ? 4 : (column?.scale ?? 0));
    } else if (value instanceof Date && !Number.isNaN(value.getTime()) && type === types.Date) {
      out[key] = value.toISOString().slice(0, 10);
    } else if (value instanceof Date && !Number.isNaN(value.getTime()) && type === types.Time) {
      out[key] = value.toISOString().slice(11, 23);
    } else {
      out[key] = sqlCell(value, column === undefined || type === types.BigInt);
    }
  }
  return out;
}

function isDecimalType(type: unknown, types: MssqlColumnTypes): boolean {
  return type === types.Decimal || type === types.Numeric || type === types.Money;
}
