import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

export interface ApplianceInfo {
  readonly version: string;
  readonly build: string;
}

/** Version from package.json; build from the BUILD file the package writes (absent in a development checkout). */
export function readApplianceInfo(root = APP_ROOT): ApplianceInfo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const buildFile = join(root, 'BUILD');
  const build = existsSync(buildFile) ? readFileSync(buildFile, 'utf8').trim() : 'development';
  return { version: pkg.version ?? '0.0.0', build: build === '' ? 'development' : build };
}
