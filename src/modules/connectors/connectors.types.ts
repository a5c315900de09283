/** What other modules use of connector types: the families that decide how data is read from a connector. */
export { OBJECT_STORE_TYPES, selectionProblems, SQL_TYPES } from './connector-types';
