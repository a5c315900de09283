import '../common/runtime/require-supported-node';
import { createPublicKey, KeyObject, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { APP_ROOT } from '../common/config';
import { keyIdOf, loadOrCreateEd25519Key, readEd25519PrivateKey } from '../common/crypto/ed25519-key';
import { ENTITLEMENTS, isEntitlement } from '../common/auth/entitlements';
import { encodeLicense, LicensePayload } from '../modules/licensing/license-format';
import { LicenseRejectedError, licenseTimeState, verifyLicense } from '../modules/licensing/license-verifier';
import { readEd25519PublicKey, scanTrustedKeys } from '../modules/licensing/trusted-keys';

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('must be a whole number of at least 1');
  }
  return n;
}

function timestamp(value: string): string {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError('must be an RFC 3339 timestamp or a date (YYYY-MM-DD)');
  }
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

function entitlementList(value: string): string[] {
  const names = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  const unknown = names.filter((n) => !isEntitlement(n));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown entitlement(s) ${unknown.join(', ')}; known: ${ENTITLEMENTS.join(', ')}`,
    );
  }
  return names;
}

function keygen(options: { out: string; force?: boolean }): void {
  const dir = resolve(options.out);
  const privateFile = join(dir, 'private.pem');
  const publicFile = join(dir, 'public.pem');
  if (!options.force && (existsSync(privateFile) || existsSync(publicFile))) {
    throw new Error(`${dir} already holds a key pair; refusing to overwrite it (use --force)`);
  }
  if (options.force) rmSync(privateFile, { force: true });
  const { publicKey, kid, created } = loadOrCreateEd25519Key(privateFile);
  if (!created)
    throw new Error(`${privateFile} appeared while the key was being made; refusing to overwrite it`);
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  process.stdout.write(
    `${JSON.stringify({ kid, private_key: privateFile, public_key: publicFile }, null, 2)}\n`,
  );
}

interface IssueOptions {
  privateKey: string;
  licensee: string;
  edition: string;
  entitlements: string[];
  maxDevices: number;
  maxDevicesPerKey: number;
  expiresAt: string;
  notBefore?: string;
  issuedAt?: string;
  id?: string;
  out: string;
}

function issue(options: IssueOptions): void {
  const privateKey = readEd25519PrivateKey(options.privateKey);
  const publicKey = createPublicKey(privateKey);
  const issuedAt = options.issuedAt ?? timestamp(new Date().toISOString());
  const notBefore = options.notBefore ?? issuedAt;
  if (new Date(options.expiresAt).getTime() <= new Date(notBefore).getTime()) {
    throw new Error('--expires-at must be after --not-before (default: now)');
  }
  const payload: LicensePayload = {
    id: options.id ?? `lic_${randomUUID()}`,
    licensee: { name: options.licensee },
    edition: options.edition,
    entitlements: options.entitlements,
    caps: { max_devices: options.maxDevices, max_devices_per_key: options.maxDevicesPerKey },
    issued_at: issuedAt,
    not_before: notBefore,
    expires_at: options.expiresAt,
  };
  const text = encodeLicense(payload, privateKey, publicKey);
  // The issued license must pass the appliance's own verifier before it leaves the vendor.
  verifyLicense(text, new Map([[keyIdOf(publicKey), publicKey]]));
  writeFileSync(resolve(options.out), text, { mode: 0o644 });
  process.stdout.write(
    `${JSON.stringify({ file: resolve(options.out), kid: keyIdOf(publicKey), ...payload }, null, 2)}\n`,
  );
}

function inspect(file: string, options: { publicKey?: string; keysDir?: string }): void {
  const trusted = new Map<string, KeyObject>();
  const keysDir = resolve(options.keysDir ?? join(APP_ROOT, 'licenses', 'keys'));
  for (const k of scanTrustedKeys(keysDir).keys) trusted.set(k.kid, k.key);
  if (options.publicKey) {
    const key = readEd25519PublicKey(options.publicKey);
    trusted.set(keyIdOf(key), key);
  }
  const text = readFileSync(resolve(file), 'utf8');
  try {
    const license = verifyLicense(text, trusted);
    const report = {
      valid: true,
      state_now: licenseTimeState(license, new Date()),
      kid: license.kid,
      id: license.id,
      licensee: license.licensee,
      edition: license.edition,
      entitlements: license.entitlements,
      unknown_entitlements: license.unknownEntitlements,
      caps: license.caps,
      issued_at: license.issuedAt.toISOString(),
      not_before: license.notBefore.toISOString(),
      expires_at: license.expiresAt.toISOString(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    if (!(error instanceof LicenseRejectedError)) throw error;
    process.stdout.write(
      `${JSON.stringify({ valid: false, error: error.event, reason: error.reason, trusted_kids: [...trusted.keys()] }, null, 2)}\n`,
    );
    process.exitCode = 2;
  }
}

export function buildProgram(): Command {
  const program = new Command('license').description('Decision Service v2 license tool (vendor side)');
  program
    .command('keygen')
    .description('create an Ed25519 signing key pair: private.pem (0600) and public.pem')
    .requiredOption('--out <dir>', 'directory for private.pem and public.pem')
    .option('--force', 'overwrite an existing pair')
    .action(keygen);
  program
    .command('issue')
    .description('sign a v2 license')
    .requiredOption('--private-key <file>', 'vendor signing key (PEM, PKCS#8)')
    .requiredOption('--licensee <name>', 'licensee name')
    .requiredOption('--edition <edition>', 'edition name, e.g. enterprise')
    .requiredOption('--entitlements <list>', `comma list of: ${ENTITLEMENTS.join(', ')}`, entitlementList)
    .requiredOption('--max-devices <n>', 'devices on the whole appliance (>= 1)', positiveInteger)
    .requiredOption(
      '--max-devices-per-key <n>',
      'highest device_limit a key may have (>= 1)',
      positiveInteger,
    )
    .requiredOption('--expires-at <time>', 'end of validity (RFC 3339)', timestamp)
    .option('--not-before <time>', 'start of validity (default: now)', timestamp)
    .option('--issued-at <time>', 'issue time (default: now)', timestamp)
    .option('--id <id>', 'license id (default: lic_<uuid>)')
    .requiredOption('--out <file>', 'where to write the .lic file')
    .action(issue);
  program
    .command('inspect')
    .description('verify a license and print its content; exit 2 when it is not valid')
    .argument('<file>', 'license file')
    .option('--public-key <file>', 'also trust this public key')
    .option('--keys-dir <dir>', 'trusted keys directory (default: licenses/keys)')
    .action(inspect);
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      process.stderr.write(`license: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
