import { ERROR_CATALOGUE, ErrorCode } from './catalogue';

export interface ErrorDetail {
  readonly field: string;
  readonly problem: string;
}

/** The only error services throw; the filter turns it into the body of DESIGN.md §3. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: readonly ErrorDetail[],
    readonly headers?: Readonly<Record<string, string>>,
    readonly fields?: Readonly<Record<string, string>>,
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'AppError';
    this.status = ERROR_CATALOGUE[code].status;
  }

  static retryLater(code: ErrorCode, waitMs: number, message?: string): AppError {
    return new AppError(code, message, undefined, { 'retry-after': String(retryAfterSeconds(waitMs)) });
  }

  static validation(details: readonly ErrorDetail[], message?: string): AppError {
    const summary = details.map((d) => `${d.field}: ${d.problem}`).join('; ');
    return new AppError('validation_failed', message ?? `The request is invalid: ${summary}`, details);
  }
}

/** Whole seconds a client should wait for `waitMs` to pass, never 0 (a `Retry-After` of 0 invites a busy loop). */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    request_id: string;
    details?: readonly ErrorDetail[];
    [field: string]: unknown;
  };
}

export function toErrorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: {
      ...error.fields,
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}
