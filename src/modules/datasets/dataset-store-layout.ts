import { DATA_TABLE } from './sql-identifiers';
import { ColumnType } from './value-kinds';

/** The layout of a dataset version's DuckDB file (docs/datasets.md, "Storage"). */
export const STORE_META_TABLE = '_ds_meta';
export const STORE_LAYOUT_VERSION = '1';
export const DATASET_FILE_EXTENSION = '.duckdb';

/** Scales a `number` column may be stored at as DECIMAL(18, s); past 12 it is a DOUBLE. */
const DECIMAL_SCALES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12] as const;
/** A DECIMAL column holds at most this many significant digits, as the classifier's own numbers do. */
const DECIMAL_DIGITS = 15;

/**
 * The DuckDB type a column of this schema type gets. A `number` column becomes DECIMAL(18, s) when every value is
 * a decimal of at most 15 significant digits at scale s (a double that round-trips through it), so sums over it are
 * exact and do not depend on how many threads add them; otherwise it stays DOUBLE.
 */
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
