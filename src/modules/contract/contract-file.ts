import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

export const CONTRACT_FILE = join(APP_ROOT, 'contract', 'openapi.json');
