export { APP_LOGGER, createLogger } from './logger';
export type { AppLogger } from './logger';
export { REDACTED, redactSecrets } from './redact';
