import { DisposableStore } from '../base/disposable';
import { Emitter } from '../common/emitter';
import { failureDetail, sqliteFailureOf, type SqliteFailure } from '../base/sqlite-failure';
import { backoffMs } from '../common/backoff';
import { runDetached } from '../base/unexpected-error';
import type { TransferQueue } from '../engine/api';
import type { SyncRepo, WatchRootRecord } from '../store/sync-repo';
import type { WatchRootEvent, WatchRootState } from './events';
import type { WatchRootOptions } from './options';
import { MissingFiles } from './missing-files';
import { MissingHold } from './missing-hold';
import { PathFilter } from './path-filter';
import { problemEvent, rootReason, type RootReason } from './problems';
import { fullScan } from './root-scan';
import { RootWatchers } from './root-watchers';
import { sameContent, type ScanCounts } from './reconcile';
import type { RemoteOps } from './remote-ops';
import { RootIndexer } from './root-indexer';
import { DiskFullWaits } from './disk-full-waits';
import { BurstCatchUp } from './burst-catch-up';
import { RootFiles } from './root-files';
import { RootPresence } from './root-presence';
import { RootUnavailableError } from './scanner';
import type { PendingFile } from './stability';
import { heldScanCode, QUEUE_RETRY, StableFiles } from './stable-files';
import type { startFolderWatcher, WatchEvent, WatcherBackend } from './watcher';

/**
 * Runs work nobody awaits (runDetached: a failure reaches onUnexpectedError), except that a
 * database closed under it (the app quitting) is no failure to report: the next start scans.
 */
function background(work: Promise<unknown>, context: string): void {
  runDetached(
    work.catch((e: unknown) => {
      if (sqliteFailureOf(e) !== 'closed') throw e;
    }),
    context,
  );
}

/** Pausing a root pauses its queued transfers when the queue offers this (UploadEngine does). */
export interface QueueControl {
  pause(id: number): boolean;
  resume(id: number): boolean;
}

export interface WatchRootDeps {
  record: WatchRootRecord;
  options: WatchRootOptions;
  /** Folders inside the root always left out (the app's data folder), '/' form. */
  excludedDirs?: readonly string[];
  repo: SyncRepo;
  queue: TransferQueue;
  control?: QueueControl;
  remote?: RemoteOps;
  backend?: WatcherBackend;
  /** How often the root's presence is checked and missing files are settled; default 1000 ms. */
  housekeepingMs?: number;
  /** How long a deleted file waits for a rename to claim it; default stabilityMs + 5 s. */
  missingGraceMs?: number;
  /** The clock of the stability rule (scan and window); default Date.now. Tests move it by hand. */
  now?: () => number;
  /** How long a burst of events must be quiet before the root catches up (burst-catch-up.ts); default 1000 ms. */
  burstQuietMs?: number;
  /** Starts the OS watches (default the backend's own); a test wraps it to drop events as an overflowing OS queue does. */
  startWatcher?: typeof startFolderWatcher;
}

/**
 * One watched folder, live: its state (starting, watching, paused, unavailable, closed) and
 * the order of its work. It reconciles the folder with its index (root-scan.ts: start,
 * rescan after a wake, return after being unavailable), then follows changes through its
 * watches (root-watchers.ts), read as hints by root-files.ts, puts changed files through
 * the stability window (stable-files.ts) and feeds the queue through a RootIndexer; rows of
 * files gone are missing-files.ts's. Its presence is checked by root-presence.ts; a full
 * disk holds its scan and files (disk-full-waits.ts). All index work runs one step at a time
 * (`serial`). Everything it holds is in one DisposableStore that `close()` releases.
 */
export class WatchRoot {
  private stateValue: WatchRootState = 'starting';
  private reasonValue: RootReason | null = null;
  private readonly events = new Emitter<WatchRootEvent>('watch root listener');
  private readonly filter: PathFilter;
  private readonly indexer: RootIndexer;
  private readonly missing: MissingFiles;
  private readonly rootPath: string;
  private readonly watch: RootWatchers;
  private readonly files: RootFiles;
  private readonly stable: StableFiles;
  private chain: Promise<unknown> = Promise.resolve();
  private pendingEvents: Array<{ type: WatchEvent['type']; relPath: string }> = [];
  private readonly presence: RootPresence;
  /** Stable files and scans held by a full disk (disk-full-waits.ts), cleared at close. */
  private readonly diskFull = new DiskFullWaits();
  private busy = 0;
  /** Everything the root holds, released by close() newest first (see the constructor). */
  private readonly lifetime = new DisposableStore();
  /** Whether missing rows may be finalized yet (missing-hold.ts). */
  private readonly missingHold = new MissingHold((p) => this.stable.has(p));
  /** A burst of events is followed by renewed watches and a full scan, once quiet (burst-catch-up.ts). */
  private readonly burst: BurstCatchUp;
  /** Failed scans held by another connection's lock or a disk error since the last complete scan, and the kind said. */
  private scanHolds = 0;
  private scanSaid: SqliteFailure | undefined;
  /** Aborted first thing at close(): a scan running stops at its next slice instead of finishing. */
  private readonly closing = new AbortController();

  constructor(private readonly d: WatchRootDeps) {
    this.rootPath = d.record.path;
    this.filter = new PathFilter({ ...d.options, excludedDirs: d.excludedDirs });
    this.watch = new RootWatchers({
      rootPath: this.rootPath,
      includeHidden: d.options.includeHidden,
      excludedDirs: d.excludedDirs,
      filter: this.filter,
      backend: d.backend,
      start: d.startWatcher,
      onEvents: (events) => {
        this.burst.note(events.length);
        this.pendingEvents.push(...events);
        this.drainEvents();
      },
      onError: () => background(this.presence.check(), 'watch root: check after a watcher error'),
      onWatchFailed: (relDir, reason) =>
        this.emit(problemEvent(this.id, relDir, 'watch-failed', { path: relDir, reason })),
    });
    this.burst = new BurstCatchUp(
      () => background(this.catchUpAfterBurst(), 'watch root: catch up after a burst'),
      d.burstQuietMs,
    );
    const graceMs = d.missingGraceMs ?? d.options.stabilityMs + 5000;
    this.presence = new RootPresence({
      rootPath: this.rootPath,
      everyMs: d.housekeepingMs,
      state: () => this.stateValue,
      lost: (reason) => this.goUnavailable(reason),
      back: () => this.start(),
      tick: () => {
        const cutoff = this.missingHold.cutoff(Date.now() - graceMs);
        if (cutoff !== undefined)
          background(
            this.serial(() => this.missing.finalize(cutoff)),
            'watch root: finalize missing files',
          );
      },
    });
    this.files = new RootFiles({
      rootId: d.record.id,
      rootPath: this.rootPath,
      options: d.options,
      filter: this.filter,
      repo: d.repo,
      reachedDirectly: (relDir) => this.watch.reachedDirectly(relDir),
      watchLinked: (relDir, realPath) => this.watchLinked(relDir, realPath),
      gone: (rel) => this.stable.forget(rel),
      emit: (e) => this.emit(e),
    });
    this.indexer = new RootIndexer({
      root: d.record,
      options: d.options,
      repo: d.repo,
      queue: d.queue,
      remote: d.remote,
      emit: (e) => this.emit(e),
      signal: this.closing.signal,
    });
    this.stable = new StableFiles({
      rootId: d.record.id,
      windowMs: d.options.stabilityMs,
      now: d.now,
      observeFile: (rel) => this.files.observeFile(rel),
      admit: (files) => this.serial(() => this.indexer.admit(files)),
      closed: () => this.closing.signal.aborted || this.isClosed(),
      diskFull: this.diskFull,
      emit: (e) => this.emit(e),
    });
    this.missing = new MissingFiles({
      root: d.record,
      options: d.options,
      repo: d.repo,
      remote: d.remote,
      emit: (e) => this.emit(e),
    });
    // Released at close in the reverse order: a scan running is told to stop, the queue's
    // events, the presence check, the full-disk retries, the watches and the stability
    // window, the index work still running (a stopped scan ends at its next slice); then the
    // root is closed and its listeners dropped.
    this.lifetime.add(() => this.events.clear());
    this.lifetime.add(() => this.setState('closed', null));
    this.lifetime.add(() => this.chain);
    this.lifetime.add(() => this.stopWatching());
    this.lifetime.add(() => this.diskFull.clear());
    this.lifetime.add(() => this.burst.clear());
    this.lifetime.add(() => this.presence.stop());
    this.lifetime.add(
      d.queue.onTransferChange((t) => {
        const rel = this.indexer.onTransfer(t);
        // Through `serial`, so close() waits for it and it never reads a closed database.
        if (rel !== undefined)
          background(
            this.serial(() => this.recheckAfterUpload(rel)),
            'watch root: recheck after upload',
          );
      }),
    );
    this.lifetime.add(() => this.closing.abort());
  }

  get id(): number {
    return this.d.record.id;
  }
  get state(): WatchRootState {
    return this.stateValue;
  }
  /** Why it is paused or unavailable, in English; null otherwise. */
  get reason(): string | null {
    return this.reasonValue?.message ?? null;
  }
  /** The same by its catalog code and params (what a UI translates). */
  get stateReason(): RootReason | null {
    return this.reasonValue;
  }
  /** Files waiting for the stability window. */
  get waitingFiles(): number {
    return this.stable.waiting;
  }

  /** What the stability window holds for a file: the size and mtime it waits with, and since when. */
  waitingFile(relPath: string): PendingFile | undefined {
    return this.stable.entry(relPath);
  }

  on(listener: (e: WatchRootEvent) => void): () => void {
    return this.events.add(listener);
  }

  private emit(e: WatchRootEvent): void {
    this.events.emit(e);
  }

  private setState(state: WatchRootState, reason: RootReason | null): void {
    if (this.stateValue === state && this.reasonValue?.message === reason?.message) return;
    this.stateValue = state;
    this.reasonValue = reason;
    // An unavailable root's reason is kept with its code, so its card says it again after a restart.
    const stored = state === 'unavailable' ? reason : null;
    if (state !== 'closed')
      this.d.repo.updateRoot(this.id, {
        unavailableReason: stored?.message ?? null,
        unavailableCode: stored?.code ?? null,
        unavailableParams: stored?.params ?? null,
        paused: state === 'paused',
      });
    this.emit({
      type: 'state',
      rootId: this.id,
      state,
      reason: reason?.message ?? null,
      reasonCode: reason?.code ?? null,
      reasonParams: reason?.params ?? null,
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      this.busy++;
      try {
        return await fn();
      } finally {
        this.busy--;
      }
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * Watches and reconciles. Resolves with the first scan's counts, or undefined when the
   * folder is unavailable (the root then waits for it and reconciles when it returns), the
   * disk under the database is full (the root stays `starting` and scans again every
   * DISK_FULL_RETRY_MS; once a scan completes it watches), another connection holds the
   * database or the disk failed a write (the same, after the one backoff), or the root closed meanwhile (the
   * scan stopped at its next slice; the next start scans again).
   */
  async start(): Promise<ScanCounts | undefined> {
    if (this.stateValue === 'closed') throw new Error('this watch root is closed');
    this.setState('starting', null);
    this.presence.arm();
    try {
      await this.watch.watchRoot();
      const counts = await this.serial(() => this.fullScan());
      if (this.closing.signal.aborted) return undefined;
      this.setState('watching', null);
      this.drainEvents();
      return counts;
    } catch (e) {
      if (this.closing.signal.aborted) return undefined; // closed while scanning: the next start scans again
      if (e instanceof RootUnavailableError) {
        await this.goUnavailable(e);
        return undefined;
      }
      if (!this.holdFailedScan(e)) throw e;
      return undefined;
    }
  }

  /**
   * Reconciles again (after the machine wakes); resolves with the counts, or undefined when a
   * full disk holds the scan (it runs again every DISK_FULL_RETRY_MS until it completes), or
   * another connection's lock or a disk error does (again after the one backoff).
   */
  async rescan(): Promise<ScanCounts | undefined> {
    try {
      return await this.serial(() => this.fullScan());
    } catch (e) {
      if (this.closing.signal.aborted) return undefined;
      if (!this.holdFailedScan(e)) throw e;
      return undefined;
    }
  }

  /**
   * A full scan refused by a full disk (SQLITE_FULL, ENOSPC) is held like the engine's
   * transfers and the watcher's files: a problem says so and the scan runs again every
   * DISK_FULL_RETRY_MS (a scan is idempotent: it reconciles the folder with the index) until
   * it completes, the root pauses, goes unavailable or closes.
   */
  private holdScan(): void {
    if (this.stateValue === 'closed') return;
    const held = this.diskFull.holdScan(() => background(this.retryHeldScan(), 'watch root: scan held by a full disk'));
    if (!held) return;
    this.emit(problemEvent(this.id, '', 'scan-disk-full', {}));
  }

  /**
   * Holds a full scan the database refused (true), or says it cannot (false: the caller
   * throws). A full disk: holdScan(). Another connection holding the database past its busy
   * timeout, or a disk error: the scan runs again after the one backoff (QUEUE_RETRY), with a
   * problem when the kind of failure starts; the rest (a damaged file, a bug) is thrown.
   */
  private holdFailedScan(e: unknown): boolean {
    const kind = sqliteFailureOf(e);
    if (kind === 'disk-full') {
      this.holdScan();
      return true;
    }
    if (kind !== 'busy' && kind !== 'io') return false;
    if (this.stateValue === 'closed') return true;
    const held = this.diskFull.holdScan(
      () => background(this.retryHeldScan(), 'watch root: scan held by the database'),
      backoffMs(this.scanHolds++, QUEUE_RETRY, Math.random()),
    );
    if (held && kind !== this.scanSaid) {
      this.scanSaid = kind;
      this.emit(problemEvent(this.id, '', heldScanCode(kind), { detail: failureDetail(e) }));
    }
    return true;
  }

  private async retryHeldScan(): Promise<void> {
    if (this.stateValue !== 'starting' && this.stateValue !== 'watching') return;
    try {
      await this.serial(() => this.fullScan());
    } catch (e) {
      if (this.closing.signal.aborted) return;
      if (e instanceof RootUnavailableError) {
        await this.goUnavailable(e);
        return;
      }
      if (!this.holdFailedScan(e)) throw e;
      return;
    }
    if (this.stateValue === 'starting') this.setState('watching', null);
    this.drainEvents();
  }

  /** Stops feeding the queue and pauses this root's queued transfers; `resume()` reconciles. */
  async pause(): Promise<void> {
    await this.serial(async () => {
      await this.stopWatching();
      this.forEachQueued((id) => this.d.control?.pause(id));
    });
    this.setState('paused', rootReason('root-paused', {}));
  }

  async resume(): Promise<ScanCounts | undefined> {
    if (this.stateValue !== 'paused') return undefined;
    this.forEachQueued((id) => this.d.control?.resume(id));
    return this.start();
  }

  /** Resolves when nothing is waiting: no events, no index work, no file in the stability window, no catch-up due. */
  async whenSettled(pollMs = 25): Promise<void> {
    for (;;) {
      await this.chain;
      if (this.busy === 0 && this.pendingEvents.length === 0 && this.waitingFiles === 0 && !this.burst.due) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /**
   * Releases every watcher, timer and subscription, after the index work running now; a
   * scan running stops at its next slice (a folder of the walk, a batch of 50 files queued),
   * so closing during the first scan of a large folder does not wait for the scan. Idempotent.
   */
  close(): Promise<void> {
    return this.lifetime.dispose();
  }

  // ---- scanning ----

  private async fullScan(): Promise<ScanCounts> {
    this.burst.scanned();
    const counts = await fullScan({
      root: this.d.record,
      options: this.d.options,
      filter: this.filter,
      repo: this.d.repo,
      indexer: this.indexer,
      missing: this.missing,
      missingHold: this.missingHold,
      now: this.d.now,
      emit: (e) => this.emit(e),
      watchLinked: (relDir, realPath) => this.watchLinked(relDir, realPath),
      signal: this.closing.signal,
      observeFresh: (files) => {
        if (files.length) this.stable.observe(files);
        return this.waitingFiles;
      },
    });
    this.scanHolds = 0;
    this.scanSaid = undefined;
    return counts;
  }

  // ---- watching ----

  private async watchLinked(relDir: string, realPath: string): Promise<void> {
    if (this.stateValue !== 'closed') await this.watch.watchLinked(relDir, realPath);
  }

  private async stopWatching(): Promise<void> {
    this.burst.clear(); // the next start or rescan scans again
    await this.watch.closeAll();
    this.stable.close();
    this.pendingEvents = [];
    this.missingHold.clear(); // the next start or rescan scans again
  }

  /**
   * After a burst (burst-catch-up.ts): the watches are renewed, so a folder the backend left
   * unwatched is watched now, and the root is scanned again, which queues the files whose
   * events were lost (the index makes it a no-op for the others). Events between the old
   * watches' end and the new ones' start are covered by that scan.
   */
  private async catchUpAfterBurst(): Promise<void> {
    try {
      await this.serial(async () => {
        if (this.stateValue !== 'watching' || this.lifetime.isDisposed) return;
        await this.watch.closeAll();
        if (this.lifetime.isDisposed) return;
        await this.watch.watchRoot();
        // close() may have released the watches while the new one started: release it too.
        if (this.lifetime.isDisposed) return this.watch.closeAll();
        await this.fullScan();
      });
    } catch (e) {
      if (this.closing.signal.aborted) return;
      if (e instanceof RootUnavailableError) return this.goUnavailable(e);
      if (!this.holdFailedScan(e)) throw e;
    }
  }

  /** Pending events are handled after the current step (events held during a scan wait for it). */
  private drainEvents(): void {
    if (this.stateValue !== 'watching' || this.pendingEvents.length === 0) return;
    background(
      this.serial(() => this.handleEvents()),
      'watch root: handle events',
    );
  }

  /** Events are hints: each path is stat'ed once per batch and the result decides (root-files.ts). */
  private async handleEvents(): Promise<void> {
    const batch = this.pendingEvents;
    this.pendingEvents = [];
    const { observe, missing } = await this.files.read(batch);
    if (missing.length) this.missing.mark(missing);
    if (observe.length && this.stateValue === 'watching') {
      // Files appearing in a root found empty end its hold once they settle (they may be its files, moved back).
      this.missingHold.filesAppeared(observe.map((o) => o.relPath));
      this.stable.observe(observe);
    }
  }

  /** A method, not a narrowed field read: close() may run while an await is pending. */
  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  /** After a transfer of this root ends: if the file changed meanwhile, it goes through the window again. */
  private async recheckAfterUpload(rel: string): Promise<void> {
    if (this.isClosed()) return;
    const obs = await this.files.observeFile(rel);
    if (this.isClosed()) return;
    const row = this.d.repo.getFile(this.id, rel);
    if (obs && row && !sameContent(row, obs) && this.stateValue === 'watching')
      this.stable.observe([{ relPath: rel, obs }]);
  }

  private forEachQueued(fn: (transferId: number) => void): void {
    for (const r of this.d.repo.loadIndex(this.id).values())
      if (r.state === 'queued' && r.transferId !== null) fn(r.transferId);
  }

  // ---- presence of the folder ----

  private async goUnavailable(reason: RootReason): Promise<void> {
    await this.serial(() => this.stopWatching());
    this.setState('unavailable', reason);
    this.presence.arm();
  }
}
