#!/usr/bin/env node
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
import { registerCompletionCommand } from './completion.command';
import { registerEgressCommands } from './egress.command';
import { registerTriggersCommands } from './triggers.command';
import { registerLoginCommands } from './login.command';
import { applyEnvFile } from './env-file';
import { registerPrivacyReportCommands } from './privacy-report.command';
import { registerVersionCommand } from './version.command';
import { registerWhoamiCommand } from './whoami.command';
import { setInsecure } from './client/transport-trust';

/** The Decision Service CLI, for users and operators. Each area registers its own subcommands; add yours here. */
export function buildDecisionctl(): Command {
  const program = new Command('decisionctl')
    .description('Decision Service command line')
    .option(
      '--insecure',
      "do not verify the appliance's certificate (warns on every request; prefer SERVICE_CA_FILE)",
    )
    .showHelpAfterError()
    .exitOverride();
  program.hook('preAction', () => setInsecure(program.opts<{ insecure?: boolean }>().insecure === true));
  registerLoginCommands(program);
  registerConfigCommands(program);
  registerWhoamiCommand(program);
  registerKeysCommands(program);
  registerDevicesCommands(program);
  registerConnectorsCommands(program);
  registerDataCommands(program);
  registerSimulateCommand(program);
  registerJobsCommands(program);
  registerTriggersCommands(program);
  registerVersionCommand(program);
  registerEgressCommands(program);
  registerPrivacyReportCommands(program);
  registerCompletionCommand(program);
  program.addHelpText(
    'after',
    `
Getting started:
  decisionctl login --base-url http://127.0.0.1:8080   store your API key (OS keyring) and register this machine
  decisionctl whoami                                   check who the CLI acts as
  decisionctl keys list                                every command takes --format json for scripts

The key comes from SERVICE_API_KEY, else the OS credential store (never a file); the base URL from
SERVICE_BASE_URL, else the config file; an https appliance's own certificate or CA from SERVICE_CA_FILE. Exit codes: 0 ok, 1 failure, 2 usage, 4 authentication, 69 service
unreachable, 75 retry later, 77 permission, 78 configuration, 130 interrupted. More: docs/cli.md.
Completion: source <(decisionctl completion bash)`,
  );
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
