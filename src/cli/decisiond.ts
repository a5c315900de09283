import '../common/runtime/require-supported-node';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeBuild, readBuildInfo } from '../common/build-info';
import { APP_ROOT, ConfigError, loadConfig } from '../common/config';
import { applyEnvFile } from './env-file';

const USAGE = `usage: decisiond               run the daemon (systemd starts it as decision-service.service)
       decisiond provision ...  create the operator organization offline (decisiond provision --help)
       decisiond rekey ...      re-encrypt stored secrets under a new SERVICE_CONFIG_ENCRYPTION_KEY, daemon stopped
                                (decisiond rekey --help)
       decisiond tls csr|install|show  the appliance's HTTPS certificate, offline (docs/tls.md)
       decisiond --version      the version, the package build, its source commit and its SBOM's SHA-256
`;

/** `decisiond` with no argument is the daemon itself: same process, so systemd's main PID is this one. */
async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    applyEnvFile(process.env);
  } catch (error) {
    process.stderr.write(`decisiond: ${(error as Error).message}\n`);
    return 78;
  }
  switch (command) {
    case undefined:
      await import('../main.js');
      return undefined;
    case 'provision':
    case 'rekey':
    case 'tls':
      return runOfflineTool(command, rest);
    case '--version':
    case 'version':
      process.stdout.write(`${versionLines().join('\n')}\n`);
      return 0;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`decisiond: unknown command "${command}"\n${USAGE}`);
      return 64;
  }
}

function versionLines(): string[] {
  const { name, version } = JSON.parse(readFileSync(join(APP_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return [`${name} ${version}`, ...describeBuild(readBuildInfo(APP_ROOT)), `node ${process.versions.node}`];
}

function runOfflineTool(tool: 'provision' | 'rekey' | 'tls', args: readonly string[]): number {
  const entry = join(__dirname, `${tool}.js`);
  if (!existsSync(entry)) {
    process.stderr.write(`decisiond: this build has no ${tool} command\n`);
    return 69;
  }
  try {
    actAsDataDirOwner();
  } catch (error) {
    process.stderr.write(`decisiond: ${(error as Error).message}\n`);
    return error instanceof ConfigError ? 78 : 77;
  }
  // As private as the unit's UMask=0077: the database and keys are the service user's alone.
  process.umask(0o077);
  const child = spawnSync(process.execPath, [entry, ...args], { stdio: 'inherit' });
  if (child.error) throw child.error;
  return child.status ?? 1;
}

/** Run as root, provisioning would leave root-owned files the daemon cannot open. */
function actAsDataDirOwner(): void {
  if (process.getuid?.() !== 0) return;
  const { dataDir } = loadConfig();
  if (!existsSync(dataDir)) return;
  const { uid, gid } = statSync(dataDir);
  if (uid === 0) return;
  process.setgroups?.([gid]);
  process.setgid?.(gid);
  process.setuid?.(uid);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`decisiond: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
