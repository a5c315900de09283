export { OBJECT_STORE_TYPES, selectionProblems, SQL_TYPES } from './connector-types';

export { isTextTable } from './formats/records';
export type { RowBatch, TextTable } from './formats/records';
