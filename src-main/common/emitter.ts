import { onUnexpectedError } from './unexpected-error';

/** Ends one subscription. Calling it again does nothing. */
export type Unsubscribe = () => void;

/**
 * Calls listeners with each emitted value, in the order they were added. A listener that
 * throws does not stop the others: its error goes to onUnexpectedError (with the emitter's
 * `context`), and `emit` returns normally. A listener removed during an emit is not called
 * after its removal; one added during an emit is first called by the next emit. Adding the
 * same function twice makes two subscriptions.
 */
export class Emitter<T> {
  private readonly listeners = new Set<{ fn: (value: T) => void }>();

  /** `context` names the emitter in error reports (e.g. 'engine transfer change'). */
  constructor(private readonly context = 'event listener') {}

  add(fn: (value: T) => void): Unsubscribe {
    const entry = { fn };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(value: T): void {
    if (this.listeners.size === 0) return;
    for (const entry of [...this.listeners]) {
      if (!this.listeners.has(entry)) continue;
      try {
        entry.fn(value);
      } catch (e) {
        onUnexpectedError(e, this.context);
      }
    }
  }

  /** How many listeners are subscribed (to skip building a value nobody listens to). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Removes every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
