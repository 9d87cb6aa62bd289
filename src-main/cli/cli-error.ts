/**
 * An error the CLI prints as one line (no stack) before exiting with `exitCode` (2: bad
 * input, 1: something failed). `code` names it for --json output.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 2,
    readonly code: string = exitCode === 2 ? 'bad-input' : 'failed',
  ) {
    super(message);
  }
}
