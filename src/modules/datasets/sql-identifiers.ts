/** The table holding a dataset's rows inside its file, and the row-ordinal column that gives every query a total
 * order. */
export const DATA_TABLE = 'rows';
export const ROW_COLUMN = '_row';

/** Quotes an identifier for DuckDB (and SQLite). Only names taken from a stored schema are ever quoted, never request text. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a string literal for DuckDB (a file path, a database name). */
export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export function identifierKey(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
