import { ExitCode } from './exit-codes';

// Files the CLI writes go through a temporary file and a rename, so exiting at once leaves each old or new.
export function exitOnInterrupt(): void {
  process.once('SIGINT', () => {
    process.stderr.write('\ndecisionctl: interrupted\n');
    process.exit(ExitCode.interrupted);
  });
}
