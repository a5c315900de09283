export { AppError, retryAfterSeconds, toErrorBody } from './app-error';
export type { ErrorDetail } from './app-error';
export { ERROR_CATALOGUE } from './catalogue';
export type { ErrorCode } from './catalogue';
export { toAppError } from './to-app-error';
export { StartupError } from './startup-error';
export { isStorageExhausted, isStoreUnavailable, storeFaultOf } from './store-unavailable';
