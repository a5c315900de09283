export { OBJECT_STORE_TYPES, selectionProblems, SQL_TYPES } from './connector-types';

export { DeclaredText, isTextTable } from './formats/records';
export type { RowBatch, TextTable } from './formats/records';
export type { PlainCsvFile } from './formats/plain-csv';
