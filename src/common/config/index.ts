export { APP_CONFIG, APP_ROOT, ConfigError, loadConfig } from './config';
export type { AppConfig } from './config';
