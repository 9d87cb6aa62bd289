/**
 * The main process's side of common/unexpected-error.ts: errors nobody awaits go to stderr
 * (one line each) until the app core sets its handler. Importing this module installs that
 * fallback; the functions are common's, re-exported for the layers that import base/.
 */
import {
  setFallbackUnexpectedErrorHandler,
  unexpectedErrorLine,
  type UnexpectedErrorHandler,
} from '../common/unexpected-error';

export {
  onUnexpectedError,
  runDetached,
  setUnexpectedErrorHandler,
  type UnexpectedErrorHandler,
} from '../common/unexpected-error';

/** Writes `context: message` (and the stack) to stderr. */
export const stderrHandler: UnexpectedErrorHandler = (error, context) => {
  process.stderr.write(`${unexpectedErrorLine(error, context)}\n`);
};

setFallbackUnexpectedErrorHandler(stderrHandler);
