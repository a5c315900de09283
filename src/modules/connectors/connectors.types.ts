/** What other modules use of connector types: the families that decide how data is read from a connector. */
export { OBJECT_STORE_TYPES, selectionProblems, SQL_TYPES } from './connector-types';

/** Row batches as the dataset ingest reads them (`ConnectorsService.readTables`). */
export { isTextTable } from './formats/records';
export type { RowBatch, TextTable } from './formats/records';
