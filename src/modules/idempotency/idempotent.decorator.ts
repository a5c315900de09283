import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { FindCreated, findCreatedOf, IDEMPOTENT_ROUTE } from './idempotent-route';

export const IDEMPOTENCY_ERROR_CODES = [
  'invalid_idempotency_key',
  'idempotency_key_in_use',
  'idempotency_key_reused',
] as const;

/** The route must be protected: keys are scoped to the caller's organization. */
export const Idempotent = <C>(findCreated: FindCreated<C>): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT_ROUTE, findCreated), UseInterceptors(IdempotencyInterceptor));

export function isIdempotentRoute(handler: object): boolean {
  return findCreatedOf(handler) !== undefined;
}
