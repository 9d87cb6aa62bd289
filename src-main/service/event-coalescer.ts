import { section } from '../base/loop-watch';
import type {
  AppEvents,
  ProblemView,
  RootActivityView,
  TransferProgressView,
  TransferTotals,
  TransferView,
  WatchRootView,
} from '../shared/contract';
import type { FmgrTaskView, VcaJobView } from '../shared/task-views';
import type { TransferSnapshot } from '../shared/models';
import { TERMINAL_TRANSFER_STATES } from '../shared/models';
import { emptyTotals } from '../common/totals';
import { ProgressTracker } from '../engine/progress';

/** A timer the coalescer can be driven by (tests pass a fake one). */
export interface FlushClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds on a monotonic clock, for the time a batch's reads take; default performance.now. */
  now?(): number;
}

export type BatchName = 'transfers' | 'roots' | 'fmgr' | 'vca' | 'problems' | 'rootActivity';
export type BatchEvent = { [N in BatchName]: { name: N; payload: AppEvents[N] } }[BatchName];

export interface CoalescerDeps {
  /** Receives each batch. Called from a timer, so whatever caused a change has committed by then. */
  emit(e: BatchEvent): void;
  /** The list row of a transfer whose state changed (read when the batch is sent); undefined once removed. */
  transferView(snapshot: TransferSnapshot): TransferView | undefined;
  rootView(rootId: number): WatchRootView | undefined;
  /** Counts per state of every transfer, read once per batch. */
  totals(): TransferTotals;
  /** A read for a batch failed (the batch goes out with what is known); default: ignored. */
  onError?: (e: unknown) => void;
  /** Milliseconds between two batches at least; default 100 (10 a second). */
  intervalMs?: number;
  /** Transfer rows read into one batch at most; the rest go in the next ones. Default MAX_TRANSFERS_PER_BATCH. */
  maxTransfersPerBatch?: number;
  /** Milliseconds a batch may spend reading transfer rows; the rest go in the next ones. Default BATCH_READ_MS. */
  batchReadMs?: number;
  clock?: FlushClock;
}

/**
 * Each changed transfer's row is read when its batch is built (tens of µs, more on a busy
 * machine): 10,000 files queued at once would hold the main loop for a second in one batch.
 * 500 rows a batch is still 5,000 a second, more than the engine ends small files.
 */
export const MAX_TRANSFERS_PER_BATCH = 500;

/**
 * The time one batch may spend reading transfer rows: on a machine whose cores are taken,
 * 500 rows took up to 470 ms of the main loop under the long load (10,000 manual files
 * queued at once, then 100,000 watched ones). Rows not read in time wait for the next batch,
 * oldest first, as rows over MAX_TRANSFERS_PER_BATCH do; at least one row goes in each.
 */
export const BATCH_READ_MS = 10;

const REAL_CLOCK: FlushClock = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Batches what the core reports for a UI: at most one batch per `intervalMs` (10 a second)
 * whatever the number of transfers. A batch holds the latest snapshot of every transfer
 * whose row changed since the last one (a state in between may be skipped; the last one
 * always arrives), one progress entry per transfer that moved bytes, the totals per state
 * and the global throughput; likewise the latest view of each root, Fmgr task and VCA job
 * that changed, and the problems met. Nothing is dropped: a change arriving during a flush
 * goes into the next batch. The first change after a quiet period waits at most one interval.
 * A burst of more changed transfers than one batch holds is spread over the next batches
 * (oldest changes first; a later change of a waiting transfer replaces its snapshot).
 */
export class EventCoalescer {
  private readonly transfers = new Map<number, TransferSnapshot>();
  private readonly removed = new Set<number>();
  private readonly progress = new Map<number, TransferProgressView>();
  /**
   * The global throughput: bytes every transfer moved (the steps of its progress), one sample
   * per batch, as a moving average over the engine's speed window. Not the sum of each running
   * transfer's own speed: a small file (a form upload) reports its bytes in one step and ends
   * within a batch interval, so 200 files of 64 KiB summed to 0 B/s while megabytes a second went.
   */
  private readonly moved = new ProgressTracker(0, 0);
  /** Bytes moved since the last sample of `moved`. */
  private movedSinceSample = 0;
  /** bytesDone of each running transfer's latest progress: a step forward is bytes moved. */
  private readonly lastDone = new Map<number, number>();
  private readonly roots = new Set<number>();
  private readonly removedRoots = new Set<number>();
  private readonly fmgr = new Map<number, FmgrTaskView>();
  private readonly vca = new Map<number, VcaJobView>();
  private problems: ProblemView[] = [];
  private activity: RootActivityView[] = [];
  private lastTotals: TransferTotals;
  private transfersDirty = false;
  private timer: unknown;
  private closed = false;
  private readonly clock: FlushClock;
  private readonly intervalMs: number;
  private readonly maxTransfers: number;
  private readonly batchReadMs: number;
  private readonly now: () => number;

  constructor(private readonly d: CoalescerDeps) {
    this.clock = d.clock ?? REAL_CLOCK;
    this.intervalMs = d.intervalMs ?? 100;
    this.maxTransfers = d.maxTransfersPerBatch ?? MAX_TRANSFERS_PER_BATCH;
    this.batchReadMs = d.batchReadMs ?? BATCH_READ_MS;
    this.now = this.clock.now ? () => this.clock.now!() : () => performance.now();
    this.lastTotals = emptyTotals();
  }

  transferChanged(t: TransferSnapshot): void {
    this.transfers.set(t.id, t);
    if (TERMINAL_TRANSFER_STATES.includes(t.state) || t.state === 'paused' || t.state === 'queued') {
      this.lastDone.delete(t.id);
      this.progress.delete(t.id);
    }
    this.markTransfers();
  }

  transferRemoved(id: number): void {
    this.transfers.delete(id);
    this.progress.delete(id);
    this.lastDone.delete(id);
    this.removed.add(id);
    this.markTransfers();
  }

  transferProgress(p: TransferProgressView): void {
    this.progress.set(p.id, p);
    // A transfer's first progress is where it starts (a resumed one from its committed bytes);
    // a step back is a block starting over: neither moved bytes.
    const before = this.lastDone.get(p.id);
    if (before !== undefined && p.bytesDone > before) this.movedSinceSample += p.bytesDone - before;
    this.lastDone.set(p.id, p.bytesDone);
    this.markTransfers();
  }

  rootChanged(rootId: number): void {
    this.roots.add(rootId);
    this.schedule();
  }

  rootRemoved(rootId: number): void {
    this.roots.delete(rootId);
    this.removedRoots.add(rootId);
    this.schedule();
  }

  fmgrChanged(t: FmgrTaskView): void {
    this.fmgr.set(t.id, t);
    this.schedule();
  }

  vcaChanged(j: VcaJobView): void {
    this.vca.set(j.id, j);
    this.schedule();
  }

  problem(p: ProblemView): void {
    this.problems.push(p);
    this.schedule();
  }

  /** Something a watched folder did (a file finished, a scan ended…): every one arrives, in order. */
  rootActivity(e: RootActivityView): void {
    this.activity.push(e);
    this.schedule();
  }

  /**
   * Bytes per second every transfer moved over the last seconds (as of the last batch); 0
   * when the last batch's totals had none queued or running, so the figure does not stay at
   * the rate of the last upload once all have ended.
   */
  get throughput(): number {
    const t = this.lastTotals;
    if (t.queued + t.hashing + t.uploading + t.completing === 0) return 0;
    return this.moved.speed(this.now());
  }

  private markTransfers(): void {
    this.transfersDirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      section('coalescer.flush', () => this.flush());
    }, this.intervalMs);
  }

  /** Sends what is pending now (also called by close()). */
  flush(): void {
    if (this.transfersDirty) this.flushTransfers();
    if (this.roots.size || this.removedRoots.size) {
      const changed: WatchRootView[] = [];
      for (const id of this.roots) {
        const v = this.safely(() => this.d.rootView(id), undefined);
        if (v) changed.push(v);
      }
      const removed = [...this.removedRoots];
      this.roots.clear();
      this.removedRoots.clear();
      this.d.emit({ name: 'roots', payload: { changed, removed } });
    }
    if (this.fmgr.size) {
      const changed = [...this.fmgr.values()];
      this.fmgr.clear();
      this.d.emit({ name: 'fmgr', payload: { changed } });
    }
    if (this.vca.size) {
      const changed = [...this.vca.values()];
      this.vca.clear();
      this.d.emit({ name: 'vca', payload: { changed } });
    }
    if (this.problems.length) {
      const problems = this.problems;
      this.problems = [];
      this.d.emit({ name: 'problems', payload: { problems } });
    }
    if (this.activity.length) {
      const events = this.activity;
      this.activity = [];
      this.d.emit({ name: 'rootActivity', payload: { events } });
    }
  }

  private flushTransfers(): void {
    const changed: TransferView[] = [];
    const started = this.now();
    let read = 0;
    for (const [id, s] of this.transfers) {
      if (read >= this.maxTransfers || (read > 0 && this.now() - started >= this.batchReadMs)) break;
      read++;
      this.transfers.delete(id);
      // A row that cannot be read now still reports its state (the engine's snapshot).
      const v = this.safely(() => this.d.transferView(s), {
        ...s,
        rootId: null,
        pausedBy: null,
        attempts: 0,
        verified: false,
        remoteHash: null,
        persistentId: null,
        copiedFrom: null,
      });
      if (v) changed.push(v);
    }
    const progress = [...this.progress.values()];
    const removed = [...this.removed];
    this.progress.clear();
    this.removed.clear();
    this.moved.add(this.movedSinceSample, this.now());
    this.movedSinceSample = 0;
    // Rows left for the next batch keep it scheduled.
    this.transfersDirty = this.transfers.size > 0;
    this.d.emit({
      name: 'transfers',
      payload: {
        changed,
        removed,
        progress,
        totals: (this.lastTotals = this.safely(() => this.d.totals(), this.lastTotals)),
        throughput: this.throughput,
      },
    });
    if (this.transfersDirty) this.schedule();
  }

  /**
   * Runs a read of the database for a batch; a failure (the disk, a closing database) gives
   * `fallback` and is reported through `onError`: a batch is sent from a timer, where a
   * throw would end the process.
   */
  private safely<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (e) {
      try {
        this.d.onError?.(e);
      } catch {
        // the report of a failed read must not fail the batch
      }
      return fallback;
    }
  }

  /** Sends what is pending and stops; later changes are ignored. */
  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.closed = true;
    this.flush();
    while (this.transfersDirty) this.flushTransfers();
  }
}
