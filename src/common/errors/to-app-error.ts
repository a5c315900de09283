import { HttpException } from '@nestjs/common';
import { AppError } from './app-error';
import { STORE_RETRY_AFTER_MS, storeFaultOf } from './store-unavailable';

interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  status?: unknown;
}

const FASTIFY_CODES: Readonly<Record<string, () => AppError>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('invalid_json'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new AppError('invalid_json', 'The request body is empty but declared as JSON.'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('payload_too_large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError('unsupported_media_type'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new AppError('invalid_json', 'Content-Length does not match the body.'),
  FST_ERR_CTP_INVALID_TYPE: () => new AppError('unsupported_media_type'),
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('uri_too_long'),
  FST_ERR_BAD_URL: () =>
    new AppError('malformed_request', 'The request URL is not valid (bad percent-encoding).'),
};

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const framework = (error ?? {}) as FrameworkError;
  if (typeof framework.code === 'string' && FASTIFY_CODES[framework.code])
    return FASTIFY_CODES[framework.code]();
  if (error instanceof SyntaxError && (framework.statusCode === 400 || framework.status === 400)) {
    return new AppError('invalid_json');
  }
  if (error instanceof HttpException) return fromHttpStatus(error.getStatus());
  const status = typeof framework.statusCode === 'number' ? framework.statusCode : undefined;
  if (status !== undefined && status >= 400 && status < 500) return fromHttpStatus(status);
  switch (storeFaultOf(error)) {
    case 'full':
      return new AppError(
        'insufficient_storage',
        'The appliance has no disk space left for this: free space in its data dir.',
      );
    case 'unwritable':
      return AppError.retryLater(
        'store_unavailable',
        STORE_RETRY_AFTER_MS,
        'The appliance could not write its data (its disk failed the write or is read-only): retry later.',
      );
    case 'unreachable':
      return AppError.retryLater('store_unavailable', STORE_RETRY_AFTER_MS);
    case undefined:
      return new AppError('internal_error');
  }
}

function fromHttpStatus(status: number): AppError {
  switch (status) {
    case 400:
      return new AppError('invalid_json', 'The request is malformed.');
    case 404:
      return new AppError('not_found', 'No route matches this path.');
    case 405:
      return new AppError('method_not_allowed');
    case 413:
      return new AppError('payload_too_large');
    case 415:
      return new AppError('unsupported_media_type');
    case 429:
      return new AppError('rate_limited');
    default:
      return status >= 500
        ? new AppError('internal_error')
        : new AppError('validation_failed', 'The request is invalid.');
  }
}
