import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describeBuild, readBuildInfo } from '../common/build-info';
import { APP_ROOT, loadConfig } from '../common/config';

function binaryVersion(path: string): string {
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 5000 });
  if (run.error || run.status !== 0) return `not available (${path})`;
  return run.stdout.trim().split('\n')[0];
}

export function versionReport(): string {
  const { name, version } = JSON.parse(readFileSync(join(APP_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const config = loadConfig();
  return [
    `${name} ${version}`,
    `node ${process.versions.node} (${process.execPath})`,
    `engine ${binaryVersion(config.engineBinaryPath)}`,
    `runtime ${binaryVersion(config.runtimeBinaryPath)}`,
    ...describeBuild(readBuildInfo(APP_ROOT)),
  ].join('\n');
}

export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description(
      'print the versions of the service, its Node.js runtime and native binaries, and the build (commit, SBOM)',
    )
    .action(() => {
      process.stdout.write(`${versionReport()}\n`);
    });
}
