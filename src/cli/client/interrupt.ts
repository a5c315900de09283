import { ExitCode } from './exit-codes';

/**
 * Ctrl-C ends the CLI at once with status 130. Files the CLI writes go through a temporary file and a rename, so
 * stopping between two writes leaves each file either old or new, never half-written.
 */
export function exitOnInterrupt(): void {
  process.once('SIGINT', () => {
    process.stderr.write('\ndecisionctl: interrupted\n');
    process.exit(ExitCode.interrupted);
  });
}
