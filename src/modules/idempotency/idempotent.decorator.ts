import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Route metadata marking a handler that honours Idempotency-Key, for whatever documents the routes. */
export const IDEMPOTENT_ROUTE = 'idempotency:route';

/** The error codes an idempotent route answers for its key, beside the route's own. */
export const IDEMPOTENCY_ERROR_CODES = [
  'invalid_idempotency_key',
  'idempotency_key_in_use',
  'idempotency_key_reused',
] as const;

/**
 * Makes a POST that creates something honour the Idempotency-Key header (docs/api.md, "Idempotency keys"). The
 * route must be protected: keys are scoped to the caller's organization.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT_ROUTE, true), UseInterceptors(IdempotencyInterceptor));

/** Whether a route handler (a controller method) carries @Idempotent(). */
export function isIdempotentRoute(handler: object): boolean {
  return Reflect.getMetadata(IDEMPOTENT_ROUTE, handler) === true;
}
