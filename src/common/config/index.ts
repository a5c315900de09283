export { APP_CONFIG, APP_ROOT, ConfigError, loadConfig, SECRET_VARIABLES } from './config';
export type { AppConfig } from './config';
