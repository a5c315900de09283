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
