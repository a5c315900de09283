import { UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Makes a POST that creates something honour the Idempotency-Key header (docs/api.md, "Idempotency keys"). The
 * route must be protected: keys are scoped to the caller's organization.
 */
export const Idempotent = (): MethodDecorator => UseInterceptors(IdempotencyInterceptor);
