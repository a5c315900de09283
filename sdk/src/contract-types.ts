import type { operations } from './generated/openapi';
import type { JsonObject } from './types';

/** The contract's name of an operation (`operationId` of contract/openapi.json), e.g. `Connectors_create`. */
export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
/** Where the contract does not describe a body yet, a JSON object: the types tighten as the contract grows. */
type OrObject<T> = [T] extends [never] ? JsonObject : unknown extends T ? JsonObject : T;
type Responses<Op extends OperationId> = operations[Op]['responses'];
type SuccessStatus<Op extends OperationId> = Extract<keyof Responses<Op>, 200 | 201 | 202>;

/** The JSON request body of an operation. */
export type RequestBody<Op extends OperationId> = OrObject<
  JsonOf<NonNullable<operations[Op]['requestBody']>>
>;
/** The JSON answer of an operation's success. */
export type ResponseBody<Op extends OperationId> = OrObject<JsonOf<Responses<Op>[SuccessStatus<Op>]>>;
/** The contract's query parameters of an operation, or `Fallback` while the contract names none. */
export type QueryOf<Op extends OperationId, Fallback> = [
  NonNullable<operations[Op]['parameters']['query']>,
] extends [never]
  ? Fallback
  : NonNullable<operations[Op]['parameters']['query']>;

/** A list answer: the contract's page when it names the array, else `{[field]: JsonObject[], next_cursor?}`. */
export type Page<Op extends OperationId, Field extends string> =
  ResponseBody<Op> extends { [K in Field]: unknown[] }
    ? ResponseBody<Op>
    : { [K in Field]: JsonObject[] } & { next_cursor?: string | null };
/** One item of a list answer. */
export type PageItem<Op extends OperationId, Field extends string> =
  Page<Op, Field>[Field] extends Array<infer Item> ? Item : JsonObject;
