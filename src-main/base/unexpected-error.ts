/**
 * The one place for errors nobody awaits: a listener that threw, a background promise that
 * rejected, a timer callback that failed. Each goes to one settable handler. The app core
 * sets a handler that writes the event log and tells the front ends; until then (and in
 * tests, the CLI, the emulator) the default handler writes one line to stderr.
 */

/** Receives an error nobody else will see. `context` names where it came from. */
export type UnexpectedErrorHandler = (error: unknown, context: string | undefined) => void;

/** Writes `context: message` (and the stack) to stderr. */
export const stderrHandler: UnexpectedErrorHandler = (error, context) => {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`unexpected error${context ? ` in ${context}` : ''}: ${text}\n`);
};

let handler: UnexpectedErrorHandler = stderrHandler;
let depth = 0;

/**
 * Sets the handler and returns a function that puts the previous one back (tests use it).
 * A handler should not throw; when it does, or when it reports an error while handling one
 * (its own listener threw, say), that error goes to stderr rather than round again.
 */
export function setUnexpectedErrorHandler(next: UnexpectedErrorHandler): () => void {
  const previous = handler;
  handler = next;
  return () => {
    if (handler === next) handler = previous;
  };
}

/** Reports an error nobody awaited. Never throws. */
export function onUnexpectedError(error: unknown, context?: string): void {
  if (depth > 0) {
    safeStderr(error, context);
    return;
  }
  depth++;
  try {
    handler(error, context);
  } catch (e) {
    safeStderr(error, context);
    safeStderr(e, 'the unexpected-error handler');
  } finally {
    depth--;
  }
}

/**
 * Runs a promise (or an async function) in the background: its rejection goes to
 * onUnexpectedError with `context` instead of nowhere. Use it where a promise is started
 * and deliberately not awaited.
 */
export function runDetached(work: Promise<unknown> | (() => Promise<unknown>), context: string): void {
  let p: Promise<unknown>;
  try {
    p = typeof work === 'function' ? work() : work;
  } catch (e) {
    onUnexpectedError(e, context);
    return;
  }
  p.then(undefined, (e: unknown) => onUnexpectedError(e, context));
}

function safeStderr(error: unknown, context: string | undefined): void {
  try {
    stderrHandler(error, context);
  } catch {
    // stderr itself is gone (a closed pipe): there is nowhere left to report to
  }
}
