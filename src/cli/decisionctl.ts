import '../common/runtime/require-supported-node';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../common/config';
import { registerEgressCommands } from './egress.command';
import { applyEnvFile } from './env-file';
import { registerPrivacyReportCommands } from './privacy-report.command';
import { registerVersionCommand } from './version.command';

/** The operator CLI. Each area registers its own subcommands; add yours beside these. */
export function buildDecisionctl(): Command {
  const program = new Command('decisionctl')
    .description('Decision Service operator command line')
    .showHelpAfterError()
    .exitOverride();
  registerVersionCommand(program);
  registerEgressCommands(program);
  registerPrivacyReportCommands(program);
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    applyEnvFile(process.env);
    await buildDecisionctl().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`decisionctl: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof ConfigError ? 78 : 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
