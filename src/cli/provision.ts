import '../common/runtime/require-supported-node';
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { isEmail } from 'class-validator';
import { Command } from 'commander';
import pino from 'pino';
import { AppConfig, ConfigError, loadConfig } from '../common/config';
import { CoreModule } from '../common/core.module';
import { CryptoModule } from '../common/crypto';
import { DatabaseModule } from '../common/database';
import { prepareDataDir } from '../common/data-dir';
import { AppError } from '../common/errors';
import { AppLogger, createLogger } from '../common/logging';
import { toSignupResponse } from '../modules/accounts/accounts.dto';
import { AccountsModule } from '../modules/accounts/accounts.module';
import { AccountsService } from '../modules/accounts/accounts.service';
import { CreatedAccount, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.types';

@Module({})
class ProvisionModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: ProvisionModule,
      imports: [CoreModule.forRoot(config, logger), DatabaseModule, CryptoModule, AccountsModule],
    };
  }
}

interface Options {
  org: string;
  email: string;
  name: string;
  passwordStdin?: boolean;
  json?: boolean;
}

class UsageError extends Error {}

/** sysexits.h: the command was used incorrectly. */
const EX_USAGE = 64;

function checkOptions(options: Options, password: string | undefined): void {
  if (!isEmail(options.email) || options.email.length > 254)
    throw new UsageError(`--email: "${options.email}" is not an e-mail address`);
  for (const [flag, value] of [
    ['--org', options.org],
    ['--name', options.name],
  ] as const) {
    if (value.trim().length === 0 || value.length > 200)
      throw new UsageError(`${flag}: must be 1 to 200 characters`);
  }
  if (
    password !== undefined &&
    (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
  ) {
    throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
}

function readPassword(): string {
  return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
}

function report(account: CreatedAccount, asJson: boolean, hasPassword: boolean): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(toSignupResponse(account), null, 2)}\n`);
    return;
  }
  const lines = [
    `Operator organization "${account.organization.name}" created (${account.organization.id}).`,
    `Owner: ${account.user.name} <${account.user.email}> (${account.user.id}), role owner.`,
    hasPassword
      ? 'The owner can log in with the password given.'
      : 'No password set: the owner sets one through POST /auth/forgot-password (the link goes to the mail outbox).',
    '',
    'Bootstrap API key (owner role). It is shown only this once: store it now.',
    '',
    account.apiKey.rawKey,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function provision(options: Options): Promise<number> {
  const password = options.passwordStdin ? readPassword() : undefined;
  checkOptions(options, password);
  const config = loadConfig();
  const logger = createLogger(
    config.logLevel === 'info' ? 'warn' : config.logLevel,
    pino.destination({ fd: 2, sync: true }),
  );
  prepareDataDir(config, logger);
  const app = await NestFactory.createApplicationContext(ProvisionModule.forRoot(config, logger), {
    logger: false,
  });
  try {
    const account = await app.get(AccountsService).provision({
      email: options.email,
      name: options.name.trim(),
      organizationName: options.org.trim(),
      password,
    });
    report(account, options.json === true, password !== undefined);
    return 0;
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const program = new Command()
    .name('provision')
    .description(
      "Creates the operator organization, its owner and the bootstrap API key, offline, in the daemon's store " +
        "(the data dir's SQLite file, or SERVICE_DATABASE_URL). Works with sign-up disabled; refuses when an " +
        'operator organization exists.',
    )
    .requiredOption('--org <name>', 'name of the operator organization')
    .requiredOption('--email <email>', 'e-mail address of the owner')
    .requiredOption('--name <name>', 'display name of the owner')
    .option(
      '--password-stdin',
      'read the owner password from standard input (otherwise set it later by reset)',
    )
    .option('--json', 'print the result as JSON (same shape as the sign-up response)')
    .showHelpAfterError()
    // A missing or unknown argument is a usage error (EX_USAGE), as docs/accounts.md says; --help stays 0.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EX_USAGE));
  program.parse();
  try {
    process.exitCode = await provision(program.opts<Options>());
  } catch (error) {
    const known =
      error instanceof UsageError || error instanceof ConfigError
        ? error.message
        : error instanceof AppError
          ? `${error.code}: ${error.message}`
          : undefined;
    process.stderr.write(
      `provision: ${known ?? (error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
    );
    process.exitCode = error instanceof UsageError ? EX_USAGE : 1;
  }
}

void main();
