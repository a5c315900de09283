export { Idempotent, IDEMPOTENCY_ERROR_CODES, isIdempotentRoute } from './idempotent.decorator';
export { IdempotencyOperation, IdempotentRetry } from './idempotent-route';
