import type { operations } from './generated/openapi';

/** The contract's name of an operation (`operationId` of contract/openapi.json), e.g. `Connectors_create`. */
export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Responses<Op extends OperationId> = operations[Op]['responses'];
type SuccessStatus<Op extends OperationId> = Extract<keyof Responses<Op>, 200 | 201 | 202>;

/** The JSON request body of an operation. */
export type RequestBody<Op extends OperationId> = JsonOf<NonNullable<operations[Op]['requestBody']>>;
/** The JSON answer of an operation's success. */
export type ResponseBody<Op extends OperationId> = JsonOf<Responses<Op>[SuccessStatus<Op>]>;
/** The contract's query parameters of an operation, or `Fallback` while the contract names none. */
export type QueryOf<Op extends OperationId, Fallback> = [
  NonNullable<operations[Op]['parameters']['query']>,
] extends [never]
  ? Fallback
  : NonNullable<operations[Op]['parameters']['query']>;

/** The fields of an operation's answer that hold an array (`connectors`, `datasets`...). */
type ArrayFieldOf<Op extends OperationId> = {
  [K in keyof ResponseBody<Op>]: ResponseBody<Op>[K] extends unknown[] ? K : never;
}[keyof ResponseBody<Op>] &
  string;
/** A list answer: the contract's page, whose `Field` holds the items. */
export type Page<Op extends OperationId, Field extends ArrayFieldOf<Op>> =
  ResponseBody<Op> extends Record<Field, unknown[]> ? ResponseBody<Op> : never;
/** One item of a list answer. */
export type PageItem<Op extends OperationId, Field extends ArrayFieldOf<Op>> =
  ResponseBody<Op>[Field] extends Array<infer Item> ? Item : never;
