export { AppError, retryAfterSeconds, toErrorBody } from './app-error';
export type { ErrorBody, ErrorDetail } from './app-error';
export { ERROR_CATALOGUE, isErrorCode } from './catalogue';
export type { ErrorCode } from './catalogue';
export { isStorageExhausted, toAppError } from './to-app-error';
export { StartupError } from './startup-error';
