/** What other modules use of idempotency: the route decorator and the error codes it adds to a route. */
export { Idempotent, IDEMPOTENCY_ERROR_CODES, isIdempotentRoute } from './idempotent.decorator';
