/** What other modules use of idempotency: the route decorators and the error codes it adds to a route. */
export { Idempotent, IDEMPOTENCY_ERROR_CODES, isIdempotentRoute } from './idempotent.decorator';
export { IdempotencyOperation, IdempotentRetry } from './idempotent-route';
