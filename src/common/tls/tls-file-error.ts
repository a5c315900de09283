/** A certificate, key or bundle that cannot be used; the message names the file and the problem. */
export class TlsFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'TlsFileError';
  }
}
