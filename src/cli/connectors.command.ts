import { Command } from 'commander';
import { collectSetting, readJsonObject } from './client/arguments';
import { connect } from './client/connection';
import { CliFailure, ExitCode } from './client/exit-codes';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { type PagingOptions, pageToPrint, withPaging } from './client/paging';
import { withProgress } from './client/progress';

interface CreateOptions extends FormatOptions {
  readonly type: string;
  readonly configFile?: string;
  readonly set?: Record<string, unknown>;
}

function configOf(options: CreateOptions): Record<string, unknown> {
  const config = {
    ...(options.configFile ? readJsonObject(options.configFile) : {}),
    ...(options.set ?? {}),
  };
  if (Object.keys(config).length === 0)
    throw new CliFailure(
      'give the connector config with --config-file <file.json> or --set name=value',
      ExitCode.usage,
    );
  return config;
}

export function registerConnectorsCommands(program: Command): void {
  const connectors = program.command('connectors').description('create, test and browse data connectors');
  withFormat(
    connectors
      .command('create')
      .description('create a connector (status untested until `connectors test`)')
      .argument('<name>', 'a name for the connector')
      .requiredOption('--type <type>', 'connector type: postgres, mysql, sqlite, rest, csv, file, s3, …')
      .option('--config-file <file>', 'the config as a JSON object (- reads standard input)')
      .option('--set <name=value>', 'a config field (repeatable; JSON values are parsed)', collectSetting),
  ).action(async (name: string, options: CreateOptions) => {
    const config = configOf(options);
    const { client } = await connect();
    printResult(
      options.format,
      await client.connectors.create({ name, connector_type: options.type, config }),
    );
  });
  withPaging(connectors.command('list').description('the connectors of the organization')).action(
    async (options: PagingOptions) => {
      const { client } = await connect();
      const page = await pageToPrint(
        client.connectors.list({ limit: options.limit, cursor: options.cursor }),
        'connectors',
        options,
      );
      printResult(options.format, page, {
        rows: page.connectors,
        columns: ['id', 'name', 'connector_type', 'status', 'created_at'],
        empty: 'no connectors',
      });
    },
  );
  withFormat(
    connectors
      .command('test')
      .description('test a connector; success makes it live')
      .argument('<id>', 'the connector id'),
  ).action(async (id: string, options: FormatOptions) => {
    const { client } = await connect();
    const result = await withProgress(`testing ${id}`, client.connectors.test(id));
    printResult(options.format, result);
    if ((result as { success?: unknown }).success === false)
      throw new CliFailure('the test failed', ExitCode.failure);
  });
  withFormat(
    connectors
      .command('browse')
      .description("list a live connector's resources (tables, files, endpoints)")
      .argument('<id>', 'the connector id'),
  ).action(async (id: string, options: FormatOptions) => {
    const { client } = await connect();
    const result = await withProgress(`browsing ${id}`, client.connectors.browse(id));
    const items = (result as { items?: unknown }).items;
    printResult(
      options.format,
      result,
      Array.isArray(items) && items.every((item) => typeof item === 'object' && item !== null)
        ? {
            rows: items as Record<string, unknown>[],
            columns: Object.keys((items[0] as Record<string, unknown> | undefined) ?? { name: '' }),
            empty: 'nothing to browse',
          }
        : undefined,
    );
  });
}
