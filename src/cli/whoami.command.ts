import { Command } from 'commander';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';

export function registerWhoamiCommand(program: Command): void {
  withFormat(
    program.command('whoami').description('show the organization and key the CLI acts as (GET /v1/me)'),
  ).action(async (options: FormatOptions) => {
    const { client, connection } = await connect();
    const me = await client.me();
    if (options.format === 'table')
      process.stderr.write(`decisionctl: ${connection.baseURL}, key from the ${connection.keySource}\n`);
    printResult(options.format, me);
  });
}
