import { DATA_TABLE, quoteIdentifier } from './sql-identifiers';
import { ColumnType } from './value-kinds';

export const STORE_META_TABLE = '_ds_meta';
export const STORE_LAYOUT_VERSION = '1';
export const DATASET_FILE_EXTENSION = '.duckdb';

const DECIMAL_SCALES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12] as const;
/** A DECIMAL column holds at most this many significant digits, as the classifier's own numbers do. */
const DECIMAL_DIGITS = 15;

/**
 * A text column with at most 2^ENUM_VALUE_BITS distinct values is stored as an ENUM of them in sorted order: grouping
 * compares integer codes (and the query instance aggregates up to that many groups in a directly indexed table), while
 * comparisons, sorting and answers are those of the text.
 */
export const ENUM_VALUE_BITS = 18;

/**
 * A value of a column of this type as answers read it: text may be stored as ENUM codes, and node-api builds an ENUM's
 * whole list of values for every vector it reads, so text leaves DuckDB as VARCHAR (a no-op on VARCHAR columns).
 */
export function answeredAs(type: ColumnType, expression: string): string {
  return isStoredAsText(type) ? `cast(${expression} as varchar)` : expression;
}

/** Whether a version stores this type's values as their text (VARCHAR or ENUM codes of it). */
export function isStoredAsText(type: ColumnType): boolean {
  return type === 'string' || type === 'date' || type === 'timestamp';
}

/** The ENUM type of the named column's values, when it has one: named after the column, so readers need only the name. */
export function enumTypeOf(column: string): string {
  return quoteIdentifier(`_ds_values_${column}`);
}

export interface StoredColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** No value at all: such a column is VARCHAR. */
  readonly empty: boolean;
  /** Exact or estimated; only decides whether an ENUM pays. */
  readonly distinctCount: number;
}

export interface BuildStatements {
  one(sql: string): Promise<Record<string, unknown>>;
  run(sql: string): Promise<unknown>;
}

/**
 * Gives a column, loaded as `loadedAs` (undefined: unknown), the type its version stores it in
 * (docs/datasets.md, "Storage"). DECIMAL sums are exact and independent of thread count (determinism).
 */
export async function storeColumn(
  db: BuildStatements,
  column: StoredColumn,
  rowCount: number,
  loadedAs?: string,
): Promise<void> {
  const target = await storedTypeOf(db, column, rowCount, DATA_TABLE);
  if (target !== loadedAs) {
    await db.run(`alter table ${DATA_TABLE} alter ${quoteIdentifier(column.name)} type ${target}`);
  }
}

/** The SQL type a column's version stores it in, judged from its values in table `from`; an ENUM is created there. */
export async function storedTypeOf(
  db: BuildStatements,
  column: StoredColumn,
  rowCount: number,
  from: string,
): Promise<string> {
  if (column.empty) return 'varchar';
  const quoted = quoteIdentifier(column.name);
  switch (column.type) {
    case 'integer':
      return 'bigint';
    case 'boolean':
      return 'boolean';
    case 'number':
      return decimalOrDouble((sql) => db.one(sql), quoted, from);
    case 'string':
    case 'date':
    case 'timestamp': {
      if (column.distinctCount > 2 ** ENUM_VALUE_BITS || column.distinctCount * 2 > rowCount)
        return 'varchar';
      const enumType = enumTypeOf(column.name);
      await db.run(
        `create type ${enumType} as enum (select distinct ${quoted} from ${from} where ${quoted} is not null order by 1)`,
      );
      return enumType;
    }
  }
}

async function decimalOrDouble(
  one: (sql: string) => Promise<Record<string, unknown>>,
  column: string,
  from: string,
): Promise<string> {
  return decimalOrDoubleOf(await one(`select ${decimalFitsSql(column, '')} from ${from}`), '');
}

/**
 * The aggregates over a number column that decide its stored type (decimalOrDoubleOf), named with `prefix`, for a
 * build that reads them in a query of its own.
 */
export function decimalFitsSql(column: string, prefix: string): string {
  const fits = DECIMAL_SCALES.map(
    (s) => `coalesce(bool_and(round(${column}, ${s}) = ${column}), true) as ${prefix}s${s}`,
  );
  return `coalesce(max(abs(${column})), 0)::double as ${prefix}magnitude, ${fits.join(', ')}`;
}

/** The smallest DECIMAL that holds every value exactly in at most 15 significant digits, or DOUBLE. */
export function decimalOrDoubleOf(row: Record<string, unknown>, prefix: string): string {
  const magnitude = Number(row[`${prefix}magnitude`]);
  for (const scale of DECIMAL_SCALES) {
    if (row[`${prefix}s${scale}`] === true && magnitude * 10 ** scale < 10 ** DECIMAL_DIGITS) {
      return `decimal(18, ${scale})`;
    }
  }
  return 'double';
}
