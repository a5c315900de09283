import { Command, InvalidArgumentError } from 'commander';
import { readJsonObject, wholeNumber } from './client/arguments';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { type PagingOptions, pageToPrint, withPaging } from './client/paging';

function finiteNumber(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new InvalidArgumentError('must be a finite number');
  return number;
}

export function registerTriggersCommands(program: Command): void {
  const triggers = program.command('triggers').description('define and inspect decision triggers');
  withFormat(
    triggers
      .command('create')
      .description('create a trigger from its definition')
      .argument('<file>', 'the trigger definition as JSON (- reads standard input)'),
  ).action(async (file: string, options: FormatOptions) => {
    const body = readJsonObject(file);
    const { client } = await connect();
    printResult(
      options.format,
      await client.triggers.create(body as Parameters<typeof client.triggers.create>[0]),
    );
  });
  withPaging(triggers.command('list').description('the triggers of the organization')).action(
    async (options: PagingOptions) => {
      const { client } = await connect();
      const page = await pageToPrint(
        client.triggers.list({ limit: options.limit, cursor: options.cursor }),
        'triggers',
        options,
      );
      printResult(options.format, page, {
        rows: page.triggers,
        columns: ['id', 'name', 'state', 'created_at'],
        empty: 'no triggers',
      });
    },
  );
  withFormat(triggers.command('get').description('one trigger').argument('<id>', 'the trigger id')).action(
    async (id: string, options: FormatOptions) => {
      const { client } = await connect();
      printResult(options.format, await client.triggers.get(id));
    },
  );
  withFormat(
    triggers.command('delete').description('delete a trigger').argument('<id>', 'the trigger id'),
  ).action(async (id: string, options: FormatOptions) => {
    const { client } = await connect();
    printResult(options.format, await client.triggers.delete(id));
  });
  withFormat(
    triggers
      .command('outcome')
      .description('report what happened after a fire (once per fire)')
      .argument('<id>', 'the trigger id')
      .argument('<fire_id>', 'the fire id')
      .argument('<realized_value>', 'the value realized', finiteNumber)
      .option(
        '--variables <file>',
        "the variables' realized values as a JSON object (- reads standard input)",
      ),
  ).action(
    async (
      id: string,
      fireId: string,
      realizedValue: number,
      options: FormatOptions & { variables?: string },
    ) => {
      const variables = options.variables ? readJsonObject(options.variables) : undefined;
      const { client } = await connect();
      printResult(
        options.format,
        await client.triggers.reportOutcome(id, fireId, {
          realized_value: realizedValue,
          ...(variables ? { realized_variables: variables as Record<string, number> } : {}),
        }),
      );
    },
  );
  withFormat(
    triggers
      .command('calibration')
      .description('calibrating, calibrated or degraded, and the counts behind it')
      .argument('<id>', 'the trigger id'),
  ).action(async (id: string, options: FormatOptions) => {
    const { client } = await connect();
    printResult(options.format, await client.triggers.calibration(id));
  });

  const policy = program
    .command('execution-policy')
    .description("the organization's rule for decision.execute (calibrated_only, always, never)");
  withFormat(policy.command('get').description('the policy in force')).action(
    async (options: FormatOptions) => {
      const { client } = await connect();
      printResult(options.format, await client.executionPolicy.get());
    },
  );
  withFormat(
    policy
      .command('set')
      .description('change the policy (admin): a new immutable snapshot')
      .argument('<mode>', 'calibrated_only, always or never')
      .option(
        '--min-outcomes <n>',
        'outcomes a trigger needs before it can be calibrated (default 30)',
        wholeNumber,
      ),
  ).action(async (mode: string, options: FormatOptions & { minOutcomes?: number }) => {
    const { client } = await connect();
    printResult(
      options.format,
      await client.executionPolicy.set({
        mode: mode as 'calibrated_only' | 'always' | 'never',
        ...(options.minOutcomes !== undefined ? { min_outcomes: options.minOutcomes } : {}),
      }),
    );
  });
}
