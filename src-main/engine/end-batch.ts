import { section } from '../base/loop-watch';
import { onUnexpectedError } from '../base/unexpected-error';
import type { EngineStore } from './ports';

/** How a run's end was recorded (the engine's finish says; undefined when it threw). */
export type EndRecorded = 'recorded' | 'disk-full' | 'failed' | undefined;

/**
 * The most ends one transaction records. Each end is a few writes, its change event and
 * what listeners do with it (the index row of a watched file, the next run's launch): about
 * 1 ms of CPU on a busy machine (a CPU profile of the long load: 32 ends and their
 * successors' launches took 38 ms), and ends of many small files piled up in one turn held
 * the loop for hundreds of ms. The rest waits for the next turn (setImmediate).
 */
export const END_BATCH_ROWS = 16;

interface Pending {
  write: () => EndRecorded;
  result: EndRecorded;
  resolve?: (r: EndRecorded) => void;
}

/**
 * Records how runs ended in one transaction for the runs that ended in the same turn of the
 * event loop (small files end many at a time: one commit instead of one per file), at most
 * END_BATCH_ROWS of them; more wait for the next turn, in order. `record` resolves with its
 * write's result once it ran; it never rejects. Should the transaction fail as a whole,
 * each record of it is run again on its own (the engine's finish reports its own failures
 * and its writes are idempotent). `afterWrites` runs after the writes, in the same
 * transaction: the engine starts the runs' successors there, so their launch writes share
 * the commit too.
 */
export class EndBatch {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly store: EngineStore,
    private readonly afterWrites: () => void = () => undefined,
  ) {}

  record(write: () => EndRecorded): Promise<EndRecorded> {
    return new Promise<EndRecorded>((resolve) => {
      this.pending.push({ write, result: undefined, resolve });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      section('endBatch.flush', () => this.flush());
    });
  }

  private flush(): void {
    const writes = this.pending.splice(0, END_BATCH_ROWS);
    // What is left (and what ends meanwhile) goes in a later turn.
    if (this.pending.length > 0) this.schedule();
    const all: Pending[] = [...writes, { write: () => (this.afterWrites(), undefined), result: undefined }];
    try {
      this.store.batch(() => all.forEach(guarded));
    } catch {
      all.forEach(guarded);
    }
    for (const p of writes) p.resolve?.(p.result);
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
