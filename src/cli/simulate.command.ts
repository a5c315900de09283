import { Command } from 'commander';
import { readJsonObject } from './client/arguments';
import { connect } from './client/connection';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { withProgress } from './client/progress';

export function registerSimulateCommand(program: Command): void {
  withFormat(
    program
      .command('simulate')
      .description('run a Monte Carlo simulation and show its recommendation')
      .argument('<file>', 'the simulation request as JSON (- reads standard input)'),
  ).action(async (file: string, options: FormatOptions) => {
    const body = readJsonObject(file);
    const { client } = await connect();
    const result = await withProgress(
      'simulating',
      client.simulate(body as Parameters<typeof client.simulate>[0]),
    );
    printResult(options.format, result);
  });
}
