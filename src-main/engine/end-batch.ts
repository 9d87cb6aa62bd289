import { onUnexpectedError } from '../base/unexpected-error';
import type { EngineStore } from './ports';

/**
 * Records how runs ended in one transaction for all the runs that ended in the same turn of
 * the event loop (small files end many at a time: one commit instead of one per file).
 * `record` resolves once its write ran; it never rejects. Should the transaction fail as a
 * whole, each record is run again on its own (the engine's finish reports its own failures
 * and its writes are idempotent). `afterWrites` runs after the writes, in the same
 * transaction: the engine starts the runs' successors there, so their launch writes share
 * the commit too.
 */
export class EndBatch {
  private pending: Array<() => void> = [];
  private flushed: Promise<void> | undefined;

  constructor(
    private readonly store: EngineStore,
    private readonly afterWrites: () => void = () => undefined,
  ) {}

  record(write: () => void): Promise<void> {
    this.pending.push(write);
    this.flushed ??= new Promise<void>((resolve) => setImmediate(() => resolve(this.flush())));
    return this.flushed;
  }

  private flush(): void {
    const writes = this.pending;
    this.pending = [];
    this.flushed = undefined;
    const all = [...writes, this.afterWrites];
    try {
      this.store.batch(() => all.forEach(guarded));
    } catch {
      all.forEach(guarded);
    }
  }
}

function guarded(write: () => void): void {
  try {
    write();
  } catch (e) {
    // the engine's finish already reports what it can; nothing here may reject a run's promise
    onUnexpectedError(e, 'engine: recording how a transfer ended');
  }
}
