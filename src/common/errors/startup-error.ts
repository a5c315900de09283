/** Stops the daemon at start: main logs `event` and exits non-zero (bad license, bad egress rule, engine required). */
export class StartupError extends Error {
  constructor(
    readonly event: string,
    message: string,
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
