import { Command } from 'commander';
import { collectSetting, wholeNumber } from './client/arguments';
import { connect } from './client/connection';
import { CliFailure, ExitCode } from './client/exit-codes';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { withProgress } from './client/progress';

interface ConnectOptions extends FormatOptions {
  readonly connector: string;
  readonly type: string;
  readonly visibility: string;
  readonly provider?: string;
  readonly set?: Record<string, unknown>;
}

interface QueryOptions extends FormatOptions {
  readonly select?: string;
  readonly limit?: number;
}

interface FitOptions extends FormatOptions {
  readonly column: string;
  readonly where?: string;
  readonly families?: string;
}

export function registerDataCommands(program: Command): void {
  const data = program
    .command('data')
    .description('connect datasets, list them, query them and fit distributions');
  withFormat(
    data
      .command('connect')
      .description(
        'make a dataset from a connector (file: connection type file; REST: api with --provider rest; ' +
          'other types: --type <connector type> and the selection with --set, e.g. --set table=orders)',
      )
      .argument('<dataset_name>', 'a name for the dataset')
      .requiredOption('--connector <id>', 'the connector to read from')
      .option('--type <connection_type>', 'file, api, or the connector type (postgres, redis, ...)', 'file')
      .option('--visibility <visibility>', 'private or org', 'private')
      .option('--provider <provider>', 'for api sources, e.g. rest')
      .option(
        '--set <name=value>',
        'a selection field of the connector type: table, pattern, index, label, cypher, path, ref ' +
          '(repeatable; JSON values are parsed; docs/connectors.md lists them per type)',
        collectSetting,
      ),
  ).action(async (datasetName: string, options: ConnectOptions) => {
    const { client } = await connect();
    const result = await withProgress(
      `connecting ${datasetName}`,
      client.data.connect({
        // The selection first: the named options above always win over a --set of the same field.
        ...options.set,
        connection_type: options.type,
        dataset_name: datasetName,
        connection_id: options.connector,
        visibility: options.visibility,
        ...(options.provider ? { provider: options.provider } : {}),
      } as Parameters<typeof client.data.connect>[0]),
    );
    printResult(options.format, result);
    if ((result as { status?: unknown }).status === 'failed')
      throw new CliFailure('the dataset could not be connected', ExitCode.failure);
  });
  withFormat(data.command('list').description('the datasets you can see')).action(
    async (options: FormatOptions) => {
      const { client } = await connect();
      const page = await client.data.list();
      printResult(options.format, page, {
        rows: page.datasets,
        columns: ['id', 'dataset_name', 'version', 'rows', 'columns'],
        empty: 'no datasets',
      });
    },
  );
  withFormat(
    data
      .command('query')
      .description('rows of a dataset: --select columns with --limit, or a question in words')
      .argument('<dataset_id>', 'the dataset')
      .argument('[question]', 'a natural-language intent, e.g. "top 5 regions by units"')
      .option('--select <columns>', 'comma-separated column names')
      .option('--limit <n>', 'at most this many rows', wholeNumber),
  ).action(async (datasetId: string, question: string | undefined, options: QueryOptions) => {
    if (question === undefined && options.select === undefined)
      throw new CliFailure('give --select <columns> (with --limit) or a question', ExitCode.usage);
    const { client } = await connect();
    const body = {
      dataset_id: datasetId,
      ...(question === undefined ? {} : { query: question }),
      ...(options.select === undefined ? {} : { select: options.select.split(',').map((c) => c.trim()) }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    };
    const result = await withProgress(
      'querying',
      client.data.query(body as Parameters<typeof client.data.query>[0]),
    );
    const rows = (result as { rows?: unknown }).rows;
    const tableRows = Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    printResult(
      options.format,
      result,
      tableRows.length > 0 && typeof tableRows[0] === 'object'
        ? { rows: tableRows, columns: Object.keys(tableRows[0]) }
        : undefined,
    );
  });
  withFormat(
    data
      .command('fit')
      .description('fit distributions to a numeric column by maximum likelihood, lowest AIC first')
      .argument('<dataset_id>', 'the dataset')
      .requiredOption('--column <name>', 'a numeric column or formula')
      .option(
        '--where <json>',
        'conditions as the typed query has them, e.g. \'[{"column":"region","op":"eq","value":"west"}]\'',
      )
      .option('--families <names>', 'comma-separated families (default: all)'),
  ).action(async (datasetId: string, options: FitOptions) => {
    let where: unknown;
    if (options.where !== undefined) {
      try {
        where = JSON.parse(options.where);
      } catch {
        throw new CliFailure('--where must be a JSON array of conditions', ExitCode.usage);
      }
    }
    const { client } = await connect();
    const body = {
      column: options.column,
      ...(where === undefined ? {} : { where }),
      ...(options.families === undefined
        ? {}
        : { families: options.families.split(',').map((f) => f.trim()) }),
    };
    const result = await withProgress(
      'fitting',
      client.data.fit(datasetId, body as Parameters<typeof client.data.fit>[1]),
    );
    const candidates = (result as { candidates?: Record<string, unknown>[] }).candidates ?? [];
    printResult(options.format, result, {
      rows: candidates.map((c) => ({
        family: c.family,
        aic: c.aic,
        ks_statistic: c.ks_statistic,
        params: JSON.stringify(c.params),
      })),
      columns: ['family', 'aic', 'ks_statistic', 'params'],
      empty: 'no family fits these values',
    });
  });
}
