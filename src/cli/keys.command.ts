import { Command } from 'commander';
import { timestamp, wholeNumber } from './client/arguments';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';

interface CreateOptions extends FormatOptions {
  readonly deviceLimit?: number;
  readonly expiresAt?: string;
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description("manage the organization's API keys");
  withFormat(keys.command('list').description('active keys (never the raw key)')).action(
    async (options: FormatOptions) => {
      const { client } = await connect();
      const page = await client.apiKeys.list();
      printResult(options.format, page, {
        rows: page.keys,
        columns: [
          'id',
          'label',
          'key_prefix',
          'role',
          'device_limit',
          'created_at',
          'expires_at',
          'last_used_at',
        ],
        empty: 'no active keys',
      });
    },
  );
  withFormat(
    keys
      .command('create')
      .description('create a key; its raw value is shown once')
      .argument('<label>', 'a name for the key')
      .option('--device-limit <n>', 'machines the key may be used from (0 = unlimited)', wholeNumber)
      .option('--expires-at <timestamp>', 'when the key stops working (ISO 8601)', timestamp),
  ).action(async (label: string, options: CreateOptions) => {
    const { client } = await connect();
    const created = await client.apiKeys.create({
      label,
      ...(options.deviceLimit === undefined ? {} : { device_limit: options.deviceLimit }),
      ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
    });
    process.stderr.write('decisionctl: the raw key is shown once: keep it now\n');
    printResult(options.format, created);
  });
  withFormat(
    keys.command('revoke').description('revoke a key at once').argument('<key_id>', 'the key id (key_…)'),
  ).action(async (keyId: string, options: FormatOptions) => {
    const { client } = await connect();
    printResult(options.format, await client.apiKeys.revoke(keyId));
  });
}
