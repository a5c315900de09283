import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Principal } from '../../common/auth/principal';

export const IDEMPOTENT_ROUTE = 'idempotency:route';

export interface IdempotentRetry {
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly operationId: string;
}

/** Undefined when nothing carries `retry.operationId`: the first run died before creating anything. */
export type FindCreated<C> = (controller: C, retry: IdempotentRetry) => Promise<unknown>;

const operations = new WeakMap<object, string>();

export function setIdempotencyOperation(request: object, operationId: string): void {
  operations.set(request, operationId);
}

/** Stored on the created row, in its transaction, under a unique index: how a retry after a crash finds it. */
export const IdempotencyOperation = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    operations.get(context.switchToHttp().getRequest<object>()),
);

export function findCreatedOf(handler: object): FindCreated<unknown> | undefined {
  const value: unknown = Reflect.getMetadata(IDEMPOTENT_ROUTE, handler);
  return typeof value === 'function' ? (value as FindCreated<unknown>) : undefined;
}
