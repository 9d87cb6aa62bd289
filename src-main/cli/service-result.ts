import type { Result } from '../shared/contract';
import { ERROR_CATALOG, isErrorCode, type ErrorKind } from '../shared/errors';
import { CliError } from './cli-error';

/**
 * The one place a service verb's error becomes the CLI's: a code of kind `input` (the
 * request itself was wrong; or another kind the caller names, e.g. a path of the command
 * line that does not exist) exits 2, any other failure 1; the message is the envelope's
 * English one and `--json` prints the code.
 */
export function valueOf<T>(r: Result<T>, usageKinds: readonly ErrorKind[] = ['input']): T {
  if (r.ok) return r.value;
  const { code, message } = r.error;
  const kind = isErrorCode(code) ? ERROR_CATALOG[code].kind : 'internal';
  throw new CliError(message, usageKinds.includes(kind) ? 2 : 1, code);
}
