import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal } from '../../common/auth/principal';

/** Route metadata: the handler honours Idempotency-Key; its value is the route's `FindCreated`. */
export const IDEMPOTENT_ROUTE = 'idempotency:route';

/** What a request retried after its daemon died tells its route, to find what the first run created. */
export interface IdempotentRetry {
  readonly principal: Principal;
  /** The route's path parameters. */
  readonly params: Readonly<Record<string, string>>;
  /** The operation id the first run recorded on what it created (see `IdempotencyOperation`). */
  readonly operationId: string;
}

/**
 * How an idempotent route answers for what an earlier run of the same request created: the answer the route gives
 * for it, or undefined when nothing carries `retry.operationId` (the first run died before creating anything).
 * Called with the route's controller.
 */
export type FindCreated<C> = (controller: C, retry: IdempotentRetry) => Promise<unknown>;

/** The operation id of each request that holds an Idempotency-Key claim, set by the interceptor. */
const operations = new WeakMap<object, string>();

export function setIdempotencyOperation(request: object, operationId: string): void {
  operations.set(request, operationId);
}

/**
 * Handler parameter: the operation id of the request's Idempotency-Key, or undefined without a key. The handler
 * stores it on the row it creates, in the transaction that creates it, under a unique index: that row is how a
 * retry after a crash finds what the first run created.
 */
export const IdempotencyOperation = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    operations.get(context.switchToHttp().getRequest<object>()),
);

/** The `FindCreated` of a route handler (a controller method), or undefined if it does not carry @Idempotent(). */
export function findCreatedOf(handler: object): FindCreated<unknown> | undefined {
  const value: unknown = Reflect.getMetadata(IDEMPOTENT_ROUTE, handler);
  return typeof value === 'function' ? (value as FindCreated<unknown>) : undefined;
}
