import type { AppEvent } from '../shared/events';

/** The core's listeners: each event goes to all of them; one that throws does not stop the others. */
export class CoreEvents {
  private readonly listeners = new Set<(e: AppEvent) => void>();

  add(fn: (e: AppEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(e: AppEvent): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
