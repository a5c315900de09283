import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

/** The committed contract (`npm run openapi` writes it); the daemon serves these bytes as they are. */
export const CONTRACT_FILE = join(APP_ROOT, 'contract', 'openapi.json');
