import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BUILD_INFO_FILE = 'build-info.json';

// snake_case: auditors read it too.
export interface BuildInfoFile {
  readonly package: string;
  readonly package_version: string;
  readonly source_commit: string;
  readonly source_date_epoch: number;
  readonly sbom_path: string;
  readonly sbom_sha256: string;
}

export interface BuildInfo {
  /** `package`: an installed .deb; `development`: a checkout, which has no package version and no SBOM. */
  readonly kind: 'package' | 'development';
  readonly packageVersion: string;
  /** The commit the package was built from; in a checkout its HEAD (uncommitted changes not included), or null. */
  readonly sourceCommit: string | null;
  readonly sbomPath: string | null;
  readonly sbomSha256: string | null;
}

export function readBuildInfo(appRoot: string): BuildInfo {
  const file = join(appRoot, BUILD_INFO_FILE);
  if (existsSync(file)) {
    const info = JSON.parse(readFileSync(file, 'utf8')) as BuildInfoFile;
    return {
      kind: 'package',
      packageVersion: info.package_version,
      sourceCommit: info.source_commit,
      sbomPath: info.sbom_path,
      sbomSha256: info.sbom_sha256,
    };
  }
  return {
    kind: 'development',
    packageVersion: 'development',
    sourceCommit: gitHead(appRoot),
    sbomPath: null,
    sbomSha256: null,
  };
}

function gitHead(dir: string): string | null {
  const run = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8', timeout: 5000 });
  const commit = run.status === 0 ? run.stdout.trim() : '';
  return /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
}

export function describeBuild(info: BuildInfo): string[] {
  if (info.kind === 'development') {
    return [
      'build development (a source checkout, not a package)',
      `source commit ${info.sourceCommit ?? 'unknown'} (git HEAD; uncommitted changes are not reflected)`,
      'sbom none (npm run package writes one into the .deb)',
    ];
  }
  return [
    `package ${info.packageVersion}`,
    `source commit ${info.sourceCommit ?? 'unknown'}`,
    `sbom sha256 ${info.sbomSha256 ?? 'unknown'} ${info.sbomPath ?? ''}`.trimEnd(),
  ];
}
