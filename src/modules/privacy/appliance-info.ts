import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBuildInfo } from '../../common/build-info';
import { APP_ROOT } from '../../common/config';

export interface ApplianceInfo {
  readonly version: string;
  /** The Debian package version, or `development` in a checkout. */
  readonly build: string;
  readonly sourceCommit: string | null;
  readonly sbomSha256: string | null;
}

export function readApplianceInfo(root = APP_ROOT): ApplianceInfo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const build = readBuildInfo(root);
  return {
    version: pkg.version ?? '0.0.0',
    build: build.packageVersion,
    sourceCommit: build.sourceCommit,
    sbomSha256: build.sbomSha256,
  };
}
