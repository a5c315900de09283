/**
 * What other modules (the query module above all) may use of a dataset: its SQLite table layout, column kinds and
 * roles, ready summaries and the read-only handle. Everything else in this folder is the datasets module's own.
 */
export type { ColumnRole } from './column-profile';
export { presentValue } from './column-profile';
export type { Row } from './readonly-database';
export { duckMessage, isInterrupted, ReadOnlyDatabase } from './readonly-database';
export { DATA_TABLE, quoteIdentifier, ROW_COLUMN } from './sql-identifiers';
export type { ColumnType } from './value-kinds';
export {
  COLUMN_TYPES,
  isDateText,
  isNumericType,
  isTemporalType,
  isTimestampText,
  utcTimestamp,
} from './value-kinds';
