import { Command } from 'commander';
import { readJsonObject } from './client/arguments';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { type PagingOptions, pageToPrint, withPaging } from './client/paging';

/** `decisionctl triggers create|list|get|delete` (docs/triggers.md for the definition). */
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
}
