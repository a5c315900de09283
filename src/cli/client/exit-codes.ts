/** The exit statuses of decisionctl (docs/cli.md); scripts branch on them, so they never change meaning. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  authentication: 4,
  unreachable: 69,
  retryLater: 75,
  permission: 77,
  configuration: 78,
  interrupted: 130,
} as const;

export type ExitStatus = (typeof ExitCode)[keyof typeof ExitCode];

export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitStatus,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}
