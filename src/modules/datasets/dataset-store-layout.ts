import { DATA_TABLE } from './sql-identifiers';
import { ColumnType } from './value-kinds';

export const STORE_META_TABLE = '_ds_meta';
export const STORE_LAYOUT_VERSION = '1';
export const DATASET_FILE_EXTENSION = '.duckdb';

const DECIMAL_SCALES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12] as const;
/** A DECIMAL column holds at most this many significant digits, as the classifier's own numbers do. */
const DECIMAL_DIGITS = 15;

/** DECIMAL sums are exact and independent of thread count (determinism); a value that does not round-trip stays DOUBLE. */
export async function storageTypeOf(
  type: ColumnType,
  empty: boolean,
  one: (sql: string) => Promise<Record<string, unknown>>,
  column: string,
): Promise<string> {
  if (empty) return 'varchar';
  switch (type) {
    case 'integer':
      return 'bigint';
    case 'boolean':
      return 'boolean';
    case 'number':
      return decimalOrDouble(one, column);
    case 'string':
    case 'date':
    case 'timestamp':
      return 'varchar';
  }
}

async function decimalOrDouble(
  one: (sql: string) => Promise<Record<string, unknown>>,
  column: string,
): Promise<string> {
  const fits = DECIMAL_SCALES.map(
    (s) => `coalesce(bool_and(round(${column}, ${s}) = ${column}), true) as s${s}`,
  );
  const row = await one(
    `select coalesce(max(abs(${column})), 0)::double as magnitude, ${fits.join(', ')} from ${DATA_TABLE}`,
  );
  const magnitude = Number(row.magnitude);
  for (const scale of DECIMAL_SCALES) {
    if (row[`s${scale}`] === true && magnitude * 10 ** scale < 10 ** DECIMAL_DIGITS) {
      return `decimal(18, ${scale})`;
    }
  }
  return 'double';
}
