/**
 * What other modules (the query module above all) may use of a dataset: its DuckDB table layout, column kinds and
 * roles, and how to read DuckDB's errors. Everything else in this folder is the datasets module's own.
 */
export type { ColumnRole } from './column-profile';
export { presentValue } from './column-profile';
export type { Row } from './readonly-database';
export { duckMessage } from './readonly-database';
export { answeredAs, ENUM_VALUE_BITS, enumTypeOf } from './dataset-store-layout';
export { DATA_TABLE, quoteIdentifier, quoteString, ROW_COLUMN } from './sql-identifiers';
export type { ColumnType } from './value-kinds';
export {
  COLUMN_TYPES,
  isDateText,
  isNumericType,
  isTemporalType,
  isTimestampText,
  utcTimestamp,
} from './value-kinds';
