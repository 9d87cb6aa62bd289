import { statSync } from 'node:fs';
import { keepYoungGenerationSmall } from '../base/heap';
import type { TransferRequest, TransferSnapshot, TransferState } from '../shared/models';
import type { ProgressEvent, TransferControl, TransferQueue } from './api';
import { EndBatch } from './end-batch';
import { StopRequest } from './errors';
import { checkBlockSize } from './plan';
import type { EngineStore, TransferRecord } from './ports';
import { ProgressTracker } from './progress';
import { runToEnd, type RunContext, type RunHandles } from './run-to-end';
import { RUNNING_STATES } from './snapshot';
import { TransferNews } from './transfer-news';
import type { KindEstimate } from './window';
import { UploadResources, type EngineOptions, type EngineTuning } from './upload-resources';

export type { ProgressEvent };

/** What `UploadEngine.inFlight()` tells. */
export interface InFlightReport {
  /** Blocks of one file uploading at once now. */
  blocksPerFile: number;
  /** Small files (form uploads) at once now. */
  smallFiles: number;
  /** The memory bound: bytes held in read buffers at most (limits.maxBytesInFlight). */
  bytesLimit: number;
  /** Bytes held in read buffers now (≤ bytesLimit, but for one oversized chunk alone). */
  bytesHeld: number;
  /** The window's measures per kind of request; undefined with a fixed window. */
  block: KindEstimate | undefined;
  form: KindEstimate | undefined;
}
export type { AccountAccess, EngineOptions, EngineTuning, StoredObjectLookup } from './upload-resources';

/** How long close() lets chunks in flight finish before aborting them. */
const CLOSE_GRACE_MS = 3000;

/**
 * The upload queue and engine (engine/api.ts TransferQueue): transfers live in the store;
 * `start()` moves what a killed run left mid-way back to queued and keeps uploading queued
 * transfers, highest priority first, within the scheduler's limits, until `close()`.
 * A listener's exception never reaches the engine: it goes to onUnexpectedError.
 */
export class UploadEngine implements TransferQueue, TransferControl {
  private readonly store: EngineStore;
  private readonly resources: UploadResources;
  private readonly running = new Map<number, RunHandles & { done: Promise<void>; small: boolean }>();
  /** Running transfers that were launched as large (block uploads): at most limits.maxFiles. */
  private largeRunning = 0;
  private readonly news: TransferNews;
  private readonly runs: RunContext;
  private readonly idleWaiters: Array<() => void> = [];
  private started = false;
  private closed = false;
  private pumping = false;
  private pumpQueued = false;
  private readonly now: () => number;

  constructor(opts: EngineOptions) {
    // The uploader's heap stays small whatever the file size (base/heap.ts; engine/README.md "Memory").
    keepYoungGenerationSmall();
    this.store = opts.store;
    this.resources = new UploadResources(opts);
    this.now = opts.now ?? Date.now;
    this.news = new TransferNews(this.store, (id) => this.running.get(id)?.tracker, this.now);
    this.runs = {
      store: this.store,
      resources: this.resources,
      ends: new EndBatch(this.store, () => this.pump()),
      news: this.news,
      now: this.now,
      closed: () => this.closed,
    };
    // A wider window admits more small files at once; it is full when these run.
    this.resources.scheduler.onChange(() => this.pumpSoon());
    this.resources.scheduler.runningFiles = () => this.running.size;
  }

  /** Tuning while uploads run, nothing restarted (UploadResources.reconfigure); a higher limit starts queued transfers now. */
  reconfigure(change: EngineTuning): void {
    this.resources.reconfigure(change);
    this.pump();
  }

  /** Resumes what a previous run left unfinished and starts uploading. Idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.store.moveStates(RUNNING_STATES, 'queued');
    this.pump();
  }

  enqueue(requests: readonly TransferRequest[]): number[] {
    for (const r of requests) {
      if (r.blockSize !== undefined) checkBlockSize(r.blockSize);
    }
    const ids = this.store.insertTransfers(requests, { ...this.resources.defaults });
    for (const id of ids) this.news.emitChange(id);
    this.pump();
    return ids;
  }

  get(id: number): TransferSnapshot | undefined {
    return this.news.get(id);
  }

  onTransferChange(listener: (t: TransferSnapshot) => void): () => void {
    return this.news.changes.add(listener);
  }

  onProgress(listener: (p: ProgressEvent) => void): () => void {
    return this.news.progress.add(listener);
  }

  /** Bandwidth limit for all transfers together, applied at once; null removes it. */
  setBandwidthLimit(bytesPerSec: number | null): void {
    this.resources.limiter.setRate(bytesPerSec);
  }

  /**
   * Forgets the cached client and token source of an account (its URL or keys changed);
   * the next transfer of it resolves the account again. Running transfers keep theirs.
   */
  forgetAccount(accountId: number): void {
    this.resources.forgetAccount(accountId);
  }

  /**
   * The counts in flight now and what the window measured (window.ts): for the bench, the
   * tests and diagnostics. `peak*` are the most the window allowed so far.
   */
  inFlight(): InFlightReport {
    const s = this.resources.scheduler;
    const w = s.window;
    return {
      blocksPerFile: s.blocksPerFile,
      smallFiles: s.smallFiles,
      bytesLimit: s.limits.maxBytesInFlight,
      bytesHeld: s.bytes.inUse,
      block: w?.estimate('block'),
      form: w?.estimate('form'),
    };
  }

  get bandwidthLimit(): number | null {
    return this.resources.limiter.rate;
  }

  /** Pauses one transfer (running or queued); its committed blocks are kept. */
  pause(id: number): boolean {
    return this.stop(id, 'paused', ['queued']);
  }

  /** Puts a paused or failed transfer back in the queue; it continues from committed offsets. */
  resume(id: number): boolean {
    const rec = this.store.getTransfer(id);
    if (!rec || !(rec.state === 'paused' || rec.state === 'failed')) return false;
    this.news.setState(id, { state: 'queued', lastError: null, attempts: 0 });
    this.pump();
    return true;
  }

  /** Cancels one transfer that has not finished; its blocks are forgotten. */
  cancel(id: number): boolean {
    return this.stop(id, 'canceled', ['queued', 'paused', 'failed']);
  }

  pauseAll(): number {
    return this.allIn(['queued', ...RUNNING_STATES], (id) => this.pause(id));
  }

  resumeAll(): number {
    return this.allIn(['paused'], (id) => this.resume(id));
  }

  cancelAll(): number {
    return this.allIn(['queued', 'paused', ...RUNNING_STATES], (id) => this.cancel(id));
  }

  /** Resolves when nothing is running and nothing queued (or the engine closed). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops every running transfer (they go back to queued, resumable by the next start) and
   * releases timers and sockets of the limiter, and the small-file reader's thread. Does not
   * close the store or clients.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const runs = [...this.running.values()];
    for (const r of runs) r.ctrl.abort(new StopRequest('queued'));
    this.resources.limiter.close(new StopRequest('queued'));
    // Chunks in flight get a moment to be acknowledged and committed, then are cut.
    const cut = setTimeout(() => {
      for (const r of runs) r.hard.abort(new StopRequest('queued'));
    }, CLOSE_GRACE_MS);
    await Promise.all(runs.map((r) => r.done));
    clearTimeout(cut);
    await this.resources.close();
    this.wakeIdle();
  }

  private allIn(states: readonly TransferState[], fn: (id: number) => boolean): number {
    let n = 0;
    for (const rec of this.store.listTransfers(states)) if (fn(rec.id)) n++;
    return n;
  }

  private stop(id: number, to: 'paused' | 'canceled', idleStates: readonly TransferState[]): boolean {
    const run = this.running.get(id);
    if (run) {
      const reason = new StopRequest(to);
      run.ctrl.abort(reason);
      if (to === 'canceled') run.hard.abort(reason);
      return true;
    }
    const rec = this.store.getTransfer(id);
    if (!rec || !idleStates.includes(rec.state)) return false;
    if (to === 'canceled') this.store.deleteBlocks(id);
    this.news.setState(id, { state: to, finishedAt: to === 'canceled' ? this.now() : null });
    this.pump();
    return true;
  }

  private isIdle(): boolean {
    return this.closed || (this.running.size === 0 && this.store.listTransfers(['queued'], 1).length === 0);
  }

  private wakeIdle(): void {
    if (!this.isIdle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /**
   * Starts queued transfers while there is room, in queue order: at most `maxFiles` large
   * ones sending blocks (uploaded in blocks; one completing frees its slot, `launch`) and at most `maxSmallFiles` (× the window, scheduler.ts) in all, so many small files (form
   * uploads, one request each) run at once while large ones keep their own limit. A large
   * file at the head waits for a large slot; the small files behind it wait too (order kept).
   */
  private pump(): void {
    if (!this.started || this.closed || this.pumping) return;
    const scheduler = this.resources.scheduler;
    const limits = scheduler.limits;
    // Small files in flight follow the window (scheduler.smallFiles: more on a long round trip).
    const cap = scheduler.filesAtOnce;
    if (this.running.size >= cap) return; // full: no transaction, no queue read
    this.pumping = true;
    try {
      // One transaction for the launches' state writes (many small files start at once).
      this.store.batch(() => {
        // The queue is read a page at a time, not `room` rows at once: a large file waiting for a
        // large slot stops the pump, and the rows read behind it were read for nothing (a queue
        // of large files read 28 rows to start one; about 9 µs a row). The first page is as many
        // as the free large slots and one more; a page whose heads all started doubles the next.
        let page = Math.max(0, limits.maxFiles - this.largeRunning) + 1;
        for (;;) {
          const room = cap - this.running.size;
          if (room <= 0) return;
          // A launched transfer leaves 'queued' synchronously (runAttempt's first write), so the
          // next read starts after it; the guard stops a loop if that write failed.
          const limit = Math.min(room, page);
          const rows = this.store.listTransfers(['queued'], limit);
          const heads = rows.filter((r) => !this.running.has(r.id));
          page *= 2;
          // Nothing more queued; or only runs whose write failed, as far as `room` rows reach.
          if (heads.length === 0 && (rows.length < limit || limit === room)) return;
          for (const next of heads) {
            const small = this.isSmall(next);
            if (!small && this.largeRunning >= limits.maxFiles) return;
            this.launch(next, small);
          }
        }
      });
    } catch (e) {
      this.news.log('error', 'engine-pump', `could not read the queue: ${(e as Error).message}`);
    } finally {
      this.pumping = false;
    }
    this.wakeIdle();
  }

  /** One pump, as a microtask, however many callers ask for one in this run of microtasks. */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /**
   * Whether a queued transfer's file is small enough for a form upload, by a stat of its
   * path now (a few µs); an unreadable path counts as large (it fails at once anyway). Only
   * the admission depends on it: the upload itself decides again from its own stat.
   */
  private isSmall(rec: TransferRecord): boolean {
    try {
      return statSync(rec.localPath).size <= this.resources.formUploadMaxBytes;
    } catch {
      return false;
    }
  }

  private launch(rec: TransferRecord, small: boolean): void {
    const ctrl = new AbortController();
    const hard = new AbortController();
    const tracker = new ProgressTracker(0, rec.size);
    let released = false;
    // A large file holds a large slot while it sends blocks; while it completes (mkfile, or
    // the Fmgr copy of bytes already stored) it sends none, and the next file's blocks start
    // meanwhile: on a long round trip a camera card's photos each spent a round trip or more
    // in mkfile with their slot idle. Back to uploading (a refused block list), it counts again.
    let holdsLarge = !small;
    const phase = (state: TransferState): void => {
      if (small || released) return;
      const holds = state !== 'completing';
      if (holds === holdsLarge) return;
      holdsLarge = holds;
      this.largeRunning += holds ? 1 : -1;
      if (!holds) this.pumpSoon();
    };
    const entry = { ctrl, hard, tracker, done: Promise.resolve(), small, phase };
    this.running.set(rec.id, entry);
    if (holdsLarge) this.largeRunning++;
    /** Frees the run's slot; true only for the call that did. */
    const release = (): boolean => {
      if (released) return false;
      released = true;
      this.running.delete(rec.id);
      if (holdsLarge) this.largeRunning--;
      return true;
    };
    // The slot is normally freed with the run's final write, and EndBatch pumps in that same
    // transaction; the pump here only covers a run that ended without that write.
    entry.done = runToEnd(this.runs, rec, entry, release).finally(() => {
      if (release()) this.pumpSoon();
    });
  }
}
