export { DATA_KEY_FILE, loadDataKey, SecretBox } from './secret-box';
