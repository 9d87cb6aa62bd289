/**
 * What every slice gets to build its actions: the bridge, and reading / replacing its own
 * part of the store. Actions are the only code that calls the bridge; components never do.
 */
import type { Bridge, UiError } from '../bridge/bridge';

export interface SliceContext<S> {
  bridge: Bridge;
  get(): S;
  /** Merges `patch` over the slice's state. */
  set(patch: Partial<S> | ((state: S) => Partial<S>)): void;
  /** Hands an error to the app slice, which shows it (the service's message and an action). */
  report(error: UiError, context: string): void;
}
