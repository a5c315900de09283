/** The table holding a dataset's rows inside its file, and the row-ordinal column that gives every query a total
 * order. */
export const DATA_TABLE = 'data';
export const ROW_COLUMN = '_row';

/** Quotes an identifier for SQLite. Only names taken from a stored schema are ever quoted, never request text. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Column names as SQLite compares them (case-insensitively, ASCII only). */
export function identifierKey(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
