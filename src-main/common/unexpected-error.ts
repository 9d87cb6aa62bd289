/**
 * The one place for errors nobody awaits: a listener that threw, a background promise that
 * rejected, a timer callback that failed. Each goes to one settable handler. No Node and no
 * DOM here, so the renderer and every main layer share it: the fallback handler writes one
 * line with `console.error` until a runtime sets its own (base/unexpected-error.ts sets
 * stderr in the main process; the app core sets one that writes the event log and tells the
 * front ends).
 */

/** Receives an error nobody else will see. `context` names where it came from. */
export type UnexpectedErrorHandler = (error: unknown, context: string | undefined) => void;

/** The one line a fallback handler writes: `unexpected error in <context>: <stack>`. */
export function unexpectedErrorLine(error: unknown, context: string | undefined): string {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return `unexpected error${context ? ` in ${context}` : ''}: ${text}`;
}

const consoleHandler: UnexpectedErrorHandler = (error, context) => {
  console.error(unexpectedErrorLine(error, context));
};

let fallback: UnexpectedErrorHandler = consoleHandler;
let handler: UnexpectedErrorHandler = consoleHandler;
let depth = 0;

/**
 * Sets the handler of last resort: the one in use until another is set, and where errors go
 * when the set handler throws or reports while handling one. A runtime calls it once.
 */
export function setFallbackUnexpectedErrorHandler(next: UnexpectedErrorHandler): void {
  if (handler === fallback) handler = next;
  fallback = next;
}

/**
 * Sets the handler and returns a function that puts the previous one back (tests use it).
 * A handler should not throw; when it does, or when it reports an error while handling one
 * (its own listener threw, say), that error goes to the fallback rather than round again.
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
    safeFallback(error, context);
    return;
  }
  depth++;
  try {
    handler(error, context);
  } catch (e) {
    safeFallback(error, context);
    safeFallback(e, 'the unexpected-error handler');
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

function safeFallback(error: unknown, context: string | undefined): void {
  try {
    fallback(error, context);
  } catch {
    // the output itself is gone (a closed pipe): there is nowhere left to report to
  }
}
