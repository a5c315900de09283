import '../common/runtime/require-supported-node';
import { Command } from 'commander';
import { describeFailure } from './client/failure';
import { exitOnInterrupt } from './client/interrupt';
import { registerConfigCommands } from './config.command';
import { registerConnectorsCommands } from './connectors.command';
import { registerDataCommands } from './data.command';
import { registerDevicesCommands } from './devices.command';
import { registerJobsCommands } from './jobs.command';
import { registerKeysCommands } from './keys.command';
import { registerSimulateCommand } from './simulate.command';
import { registerEgressCommands } from './egress.command';
import { registerLoginCommands } from './login.command';
import { applyEnvFile } from './env-file';
import { registerPrivacyReportCommands } from './privacy-report.command';
import { registerVersionCommand } from './version.command';
import { registerWhoamiCommand } from './whoami.command';

/** The Decision Service CLI, for users and operators. Each area registers its own subcommands; add yours here. */
export function buildDecisionctl(): Command {
  const program = new Command('decisionctl')
    .description('Decision Service command line')
    .showHelpAfterError()
    .exitOverride();
  registerLoginCommands(program);
  registerConfigCommands(program);
  registerWhoamiCommand(program);
  registerKeysCommands(program);
  registerDevicesCommands(program);
  registerConnectorsCommands(program);
  registerDataCommands(program);
  registerSimulateCommand(program);
  registerJobsCommands(program);
  registerVersionCommand(program);
  registerEgressCommands(program);
  registerPrivacyReportCommands(program);
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  exitOnInterrupt();
  try {
    applyEnvFile(process.env);
    await buildDecisionctl().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const { message, exitCode } = describeFailure(error);
    if (message !== undefined) process.stderr.write(`decisionctl: ${message}\n`);
    return exitCode;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // A credential store that never answered may hold the event loop open; the answer is already given.
  setTimeout(() => process.exit(code), 2000).unref();
});
