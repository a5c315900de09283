import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { FindCreated, findCreatedOf, IDEMPOTENT_ROUTE } from './idempotent-route';

/** The error codes an idempotent route answers for its key, beside the route's own. */
export const IDEMPOTENCY_ERROR_CODES = [
  'invalid_idempotency_key',
  'idempotency_key_in_use',
  'idempotency_key_reused',
] as const;

/**
 * Makes a POST that creates something honour the Idempotency-Key header (docs/api.md, "Idempotency keys"). The
 * route must be protected: keys are scoped to the caller's organization. The handler records its
 * `@IdempotencyOperation()` on what it creates, and `findCreated` finds it again by that id.
 */
export const Idempotent = <C>(findCreated: FindCreated<C>): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT_ROUTE, findCreated), UseInterceptors(IdempotencyInterceptor));

/** Whether a route handler (a controller method) carries @Idempotent(). */
export function isIdempotentRoute(handler: object): boolean {
  return findCreatedOf(handler) !== undefined;
}
