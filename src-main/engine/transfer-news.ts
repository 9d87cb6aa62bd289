import { Emitter } from '../common/emitter';
import type { TransferSnapshot } from '../shared/models';
import type { ProgressEvent } from './api';
import type { EngineStore, TransferPatch, TransferRecord } from './ports';
import type { ProgressTracker } from './progress';
import { toSnapshot } from './snapshot';

/**
 * What an engine's listeners hear, and the state writes they hear about: each write of a
 * transfer's state is followed by its change event; progress goes out at most ~10 times a
 * second per transfer, a retry at once. A snapshot joins the stored record with the live
 * tracker of a running transfer, or with the bytes its committed blocks hold when it is not
 * running. The event log is best effort.
 */
export class TransferNews {
  readonly changes = new Emitter<TransferSnapshot>('engine transfer-change listener');
  readonly progress = new Emitter<ProgressEvent>('engine progress listener');

  /** `tracker` gives the live progress of a transfer the engine is running, if it is. */
  constructor(
    private readonly store: EngineStore,
    private readonly tracker: (id: number) => ProgressTracker | undefined,
    private readonly now: () => number,
  ) {}

  get(id: number): TransferSnapshot | undefined {
    const rec = this.store.getTransfer(id);
    return rec && this.snapshot(rec);
  }

  setState(id: number, patch: TransferPatch): void {
    this.emitRecord(this.store.updateTransfer(id, patch));
  }

  /** The final write of a finished upload (store.finishTransfer), then its change event. */
  finishState(id: number, patch: TransferPatch): void {
    this.emitRecord(this.store.finishTransfer(id, patch));
  }

  emitChange(id: number): void {
    if (this.changes.listenerCount === 0) return;
    const snap = this.get(id);
    if (snap) this.changes.emit(snap);
  }

  /** The change event of a record just written (the write returned it: no second read). */
  private emitRecord(rec: TransferRecord | undefined): void {
    if (rec && this.changes.listenerCount > 0) this.changes.emit(this.snapshot(rec));
  }

  /** Moves a running transfer's progress; an event only when the tracker's throttle allows. */
  bytes(id: number, tracker: ProgressTracker, bytesDone: number, total: number): void {
    const t = performance.now();
    tracker.moveTo(bytesDone, total, t);
    if (this.progress.listenerCount === 0 || !tracker.shouldEmit(t, bytesDone >= total)) return;
    this.progress.emit(tracker.event(id, t));
  }

  /** A retry is news at once (a person must not watch a frozen bar): sent unthrottled. */
  retry(id: number, tracker: ProgressTracker, reason: string, delayMs: number, action: string): void {
    this.progress.emit(tracker.event(id, performance.now(), { reason, nextAttemptAt: this.now() + delayMs, action }));
  }

  /** A line of the event log; `data` (JSON) carries what readers branch on, e.g. the reply's request id. */
  log(
    level: 'info' | 'warn' | 'error',
    kind: string,
    message: string,
    transferId?: number,
    data?: { requestId: string | null },
  ): void {
    try {
      this.store.logEvent({ level, kind, transferId, message, ...(data ? { data } : {}) });
    } catch {
      // the event log is best effort
    }
  }

  private snapshot(rec: TransferRecord): TransferSnapshot {
    return toSnapshot(rec, this.tracker(rec.id), () => this.committedBytes(rec), performance.now());
  }

  /** Bytes the service acknowledged for a transfer that is not running (0 when finished or new). */
  private committedBytes(rec: TransferRecord): number {
    if (rec.state !== 'paused' && rec.state !== 'queued' && rec.state !== 'failed') return 0;
    let n = 0;
    for (const b of this.store.listBlocks(rec.id)) n += b.nextOffset;
    return n;
  }
}
