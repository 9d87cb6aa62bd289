import { onUnexpectedError } from '../base/unexpected-error';
import type { EngineStore } from './ports';

/** How a run's end was recorded (the engine's finish says; undefined when it threw). */
export type EndRecorded = 'recorded' | 'disk-full' | 'failed' | undefined;

interface Pending {
  write: () => EndRecorded;
  result: EndRecorded;
}

/**
 * Records how runs ended in one transaction for all the runs that ended in the same turn of
 * the event loop (small files end many at a time: one commit instead of one per file).
 * `record` resolves with its write's result once it ran; it never rejects. Should the
 * transaction fail as a whole, each record is run again on its own (the engine's finish
 * reports its own failures and its writes are idempotent). `afterWrites` runs after the
 * writes, in the same transaction: the engine starts the runs' successors there, so their
 * launch writes share the commit too.
 */
export class EndBatch {
  private pending: Pending[] = [];
  private flushed: Promise<void> | undefined;

  constructor(
    private readonly store: EngineStore,
    private readonly afterWrites: () => void = () => undefined,
  ) {}

  async record(write: () => EndRecorded): Promise<EndRecorded> {
    const p: Pending = { write, result: undefined };
    this.pending.push(p);
    this.flushed ??= new Promise<void>((resolve) => setImmediate(() => resolve(this.flush())));
    await this.flushed;
    return p.result;
  }

  private flush(): void {
    const writes = this.pending;
    this.pending = [];
    this.flushed = undefined;
    const all = [...writes, { write: () => (this.afterWrites(), undefined), result: undefined }];
    try {
      this.store.batch(() => all.forEach(guarded));
    } catch {
      all.forEach(guarded);
    }
  }
}

function guarded(p: Pending): void {
  try {
    p.result = p.write();
  } catch (e) {
    // the engine's finish already reports what it can; nothing here may reject a run's promise
    p.result = undefined;
    onUnexpectedError(e, 'engine: recording how a transfer ended');
  }
}
