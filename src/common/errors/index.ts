export { AppError, retryAfterSeconds, toErrorBody } from './app-error';
export type { ErrorDetail } from './app-error';
export { ERROR_CATALOGUE } from './catalogue';
export type { ErrorCode } from './catalogue';
export { isStorageExhausted, toAppError } from './to-app-error';
export { StartupError } from './startup-error';
export { isStoreUnavailable } from './store-unavailable';
