import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { Emitter } from '../common/emitter';
import { DISK_FULL_RETRY_MS, isDiskFull } from '../base/disk-full';
import { runDetached } from '../base/unexpected-error';
import type { TransferQueue } from '../engine/api';
import type { SyncRepo, WatchRootRecord } from '../store/sync-repo';
import type { WatchRootEvent, WatchRootState } from './events';
import type { WatchRootOptions } from './options';
import { MissingHold } from './missing-hold';
import { PathFilter } from './path-filter';
import { fullScan } from './root-scan';
import { RootWatchers } from './root-watchers';
import { sameContent, type ScanCounts } from './reconcile';
import type { RemoteOps } from './remote-ops';
import { RootIndexer } from './root-indexer';
import { RootUnavailableError, rootUnavailable, scanTree } from './scanner';
import { StabilityTracker, type FileObservation, type PendingFile } from './stability';
import type { WatchEvent, WatcherBackend } from './watcher';

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
}

/**
 * One watched folder, live: reconciles the folder with its index (root-scan.ts: start,
 * rescan after a wake, return after being unavailable), then follows changes through its
 * watches (root-watchers.ts) and a StabilityTracker, and feeds the queue through a
 * RootIndexer. All index work runs one step at a time (`serial`). `close()` releases every
 * watcher, timer and subscription.
 */
export class WatchRoot {
  private stateValue: WatchRootState = 'starting';
  private reasonValue: string | null = null;
  private readonly events = new Emitter<WatchRootEvent>('watch root listener');
  private readonly filter: PathFilter;
  private readonly indexer: RootIndexer;
  private readonly rootPath: string;
  private readonly watch: RootWatchers;
  private stability: StabilityTracker | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private pendingEvents: Array<{ type: WatchEvent['type']; relPath: string }> = [];
  private housekeeping: NodeJS.Timeout | undefined;
  /** Timers of stable files and scans held by a full disk, cleared at close. */
  private readonly diskFullRetries = new Set<NodeJS.Timeout>();
  /** A full scan waits for room on the disk (holdScan). */
  private scanHeld = false;
  private unsubscribeQueue: () => void;
  private busy = 0;
  /** Whether missing rows may be finalized yet (missing-hold.ts). */
  private readonly missingHold = new MissingHold((p) => this.stability?.has(p) ?? false);

  constructor(private readonly d: WatchRootDeps) {
    this.rootPath = d.record.path;
    this.filter = new PathFilter({ ...d.options, excludedDirs: d.excludedDirs });
    this.watch = new RootWatchers({
      rootPath: this.rootPath,
      includeHidden: d.options.includeHidden,
      excludedDirs: d.excludedDirs,
      filter: this.filter,
      backend: d.backend,
      onEvents: (events) => {
        this.pendingEvents.push(...events);
        this.drainEvents();
      },
      onError: () => runDetached(this.checkRoot(), 'watch root: check after a watcher error'),
      onWatchFailed: (relDir, message) =>
        this.emit({ type: 'problem', rootId: this.id, relPath: relDir, code: 'watch-failed', message }),
    });
    this.indexer = new RootIndexer({
      root: d.record,
      options: d.options,
      repo: d.repo,
      queue: d.queue,
      remote: d.remote,
      emit: (e) => this.emit(e),
    });
    this.unsubscribeQueue = d.queue.onTransferChange((t) => {
      const rel = this.indexer.onTransfer(t);
      // Through `serial`, so close() waits for it and it never reads a closed database.
      if (rel !== undefined)
        runDetached(
          this.serial(() => this.recheckAfterUpload(rel)),
          'watch root: recheck after upload',
        );
    });
  }

  get id(): number {
    return this.d.record.id;
  }
  get state(): WatchRootState {
    return this.stateValue;
  }
  get reason(): string | null {
    return this.reasonValue;
  }
  /** Files waiting for the stability window. */
  get waitingFiles(): number {
    return this.stability?.waiting ?? 0;
  }

  /** What the stability window holds for a file: the size and mtime it waits with, and since when. */
  waitingFile(relPath: string): PendingFile | undefined {
    return this.stability?.entry(relPath);
  }

  on(listener: (e: WatchRootEvent) => void): () => void {
    return this.events.add(listener);
  }

  private emit(e: WatchRootEvent): void {
    this.events.emit(e);
  }

  private setState(state: WatchRootState, reason: string | null): void {
    if (this.stateValue === state && this.reasonValue === reason) return;
    this.stateValue = state;
    this.reasonValue = reason;
    if (state !== 'closed')
      this.d.repo.updateRoot(this.id, {
        unavailableReason: state === 'unavailable' ? reason : null,
        paused: state === 'paused',
      });
    this.emit({ type: 'state', rootId: this.id, state, reason });
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
   * folder is unavailable (the root then waits for it and reconciles when it returns) or the
   * disk under the database is full (the root stays `starting` and scans again every
   * DISK_FULL_RETRY_MS; once a scan completes it watches).
   */
  async start(): Promise<ScanCounts | undefined> {
    if (this.stateValue === 'closed') throw new Error('this watch root is closed');
    this.setState('starting', null);
    this.armHousekeeping();
    try {
      await this.watch.watchRoot();
      const counts = await this.serial(() => this.fullScan());
      this.setState('watching', null);
      this.drainEvents();
      return counts;
    } catch (e) {
      if (e instanceof RootUnavailableError) {
        await this.goUnavailable(e.message);
        return undefined;
      }
      if (!isDiskFull(e)) throw e;
      this.holdScan();
      return undefined;
    }
  }

  /**
   * Reconciles again (after the machine wakes); resolves with the counts, or undefined when a
   * full disk holds the scan (it runs again every DISK_FULL_RETRY_MS until it completes).
   */
  async rescan(): Promise<ScanCounts | undefined> {
    try {
      return await this.serial(() => this.fullScan());
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      this.holdScan();
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
    if (this.scanHeld || this.stateValue === 'closed') return;
    this.scanHeld = true;
    this.emit({
      type: 'problem',
      rootId: this.id,
      relPath: '',
      code: 'disk-full',
      message: 'the scan of this folder waits: the disk holding the database is full; it goes on once space is freed',
    });
    const t = setTimeout(() => {
      this.diskFullRetries.delete(t);
      this.scanHeld = false;
      runDetached(this.retryHeldScan(), 'watch root: scan held by a full disk');
    }, DISK_FULL_RETRY_MS);
    this.diskFullRetries.add(t);
  }

  private async retryHeldScan(): Promise<void> {
    if (this.stateValue !== 'starting' && this.stateValue !== 'watching') return;
    try {
      await this.serial(() => this.fullScan());
    } catch (e) {
      if (e instanceof RootUnavailableError) {
        await this.goUnavailable(e.message);
        return;
      }
      if (!isDiskFull(e)) throw e;
      this.holdScan();
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
    this.setState('paused', 'paused by the user');
  }

  async resume(): Promise<ScanCounts | undefined> {
    if (this.stateValue !== 'paused') return undefined;
    this.forEachQueued((id) => this.d.control?.resume(id));
    return this.start();
  }

  /** Resolves when nothing is waiting: no events, no index work, no file in the stability window. */
  async whenSettled(pollMs = 25): Promise<void> {
    for (;;) {
      await this.chain;
      if (this.busy === 0 && this.pendingEvents.length === 0 && this.waitingFiles === 0) return;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.unsubscribeQueue();
    if (this.housekeeping) clearInterval(this.housekeeping);
    this.housekeeping = undefined;
    for (const t of this.diskFullRetries) clearTimeout(t);
    this.diskFullRetries.clear();
    this.scanHeld = false;
    await this.stopWatching();
    await this.chain;
    this.setState('closed', null);
    this.events.clear();
  }

  // ---- scanning ----

  private fullScan(): Promise<ScanCounts> {
    return fullScan({
      root: this.d.record,
      options: this.d.options,
      filter: this.filter,
      repo: this.d.repo,
      indexer: this.indexer,
      missingHold: this.missingHold,
      now: this.d.now,
      emit: (e) => this.emit(e),
      watchLinked: (relDir, realPath) => this.watchLinked(relDir, realPath),
      observeFresh: (files) => {
        if (files.length) this.ensureStability().observe(files);
        return this.waitingFiles;
      },
    });
  }

  // ---- watching ----

  private ensureStability(): StabilityTracker {
    this.stability ??= new StabilityTracker({
      windowMs: this.d.options.stabilityMs,
      now: this.d.now,
      stat: async (rel) => this.observeFile(rel),
      onReady: (files) =>
        runDetached(
          this.admitStable(files.map((f) => ({ relPath: f.relPath, size: f.obs.size, mtimeMs: f.obs.mtimeMs }))),
          'watch root: admit stable files',
        ),
    });
    return this.stability;
  }

  /**
   * Indexes and queues files that stopped changing. A full disk (under the database) holds
   * them: a problem says so, and they are tried again every DISK_FULL_RETRY_MS until there is
   * room or the root closes.
   */
  private async admitStable(files: Array<{ relPath: string; size: number; mtimeMs: number }>): Promise<void> {
    try {
      await this.serial(() => this.indexer.admit(files));
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      if (this.stateValue === 'closed') return;
      this.emit({
        type: 'problem',
        rootId: this.id,
        relPath: files[0]?.relPath ?? '',
        code: 'disk-full',
        message: `${files.length} file(s) wait: the disk holding the database is full; they are queued once space is freed`,
      });
      const t = setTimeout(() => {
        this.diskFullRetries.delete(t);
        runDetached(this.admitStable(files), 'watch root: admit files held by a full disk');
      }, DISK_FULL_RETRY_MS);
      this.diskFullRetries.add(t);
    }
  }

  private absOf(rel: string): string {
    return path.join(this.rootPath, ...rel.split('/'));
  }

  private async statOf(abs: string): Promise<Stats | null> {
    try {
      return this.d.options.symlinks === 'follow' ? await stat(abs) : await lstat(abs);
    } catch {
      return null;
    }
  }

  private async observeFile(rel: string): Promise<FileObservation | null> {
    const s = await this.statOf(this.absOf(rel));
    return s?.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  }

  private async watchLinked(relDir: string, realPath: string): Promise<void> {
    if (this.stateValue !== 'closed') await this.watch.watchLinked(relDir, realPath);
  }

  private async stopWatching(): Promise<void> {
    await this.watch.closeAll();
    this.stability?.close();
    this.stability = undefined;
    this.pendingEvents = [];
    this.missingHold.clear(); // the next start or rescan scans again
  }

  /** Pending events are handled after the current step (events held during a scan wait for it). */
  private drainEvents(): void {
    if (this.stateValue !== 'watching' || this.pendingEvents.length === 0) return;
    runDetached(
      this.serial(() => this.handleEvents()),
      'watch root: handle events',
    );
  }

  /** Events are hints: each path is stat'ed once per batch and the result decides. */
  private async handleEvents(): Promise<void> {
    const batch = this.pendingEvents;
    this.pendingEvents = [];
    const last = new Map<string, WatchEvent['type']>();
    for (const e of batch) last.set(e.relPath, e.type);
    const observe: Array<{ relPath: string; obs: FileObservation }> = [];
    const missing: string[] = [];
    for (const rel of last.keys()) {
      if (rel === '' || rel.startsWith('..')) continue;
      const s = await this.statOf(this.absOf(rel));
      if (!s) {
        this.stability?.forget(rel);
        this.stability?.forgetUnder(rel);
        missing.push(rel);
      } else if (s.isDirectory()) {
        if (this.filter.dirPathReason(rel) || !(await this.watch.reachedDirectly(rel))) continue;
        for await (const dir of scanTree({
          root: this.rootPath,
          filter: this.filter,
          symlinks: this.d.options.symlinks,
          startRelDir: rel,
        })) {
          if (dir.linkedDir) await this.watchLinked(dir.linkedDir.relDir, dir.linkedDir.realPath);
          for (const p of dir.problems)
            this.emit({ type: 'problem', rootId: this.id, relPath: p.relPath, code: p.code, message: p.message });
          for (const f of dir.files) observe.push({ relPath: f.relPath, obs: f });
        }
      } else if (s.isFile() && !this.filter.pathReason(rel)) {
        const row = this.d.repo.getFile(this.id, rel);
        if (row && row.state !== 'missing' && row.state !== 'queued' && sameContent(row, s)) continue; // nothing new (e.g. atime)
        observe.push({ relPath: rel, obs: { size: s.size, mtimeMs: s.mtimeMs } });
      }
    }
    if (missing.length) this.indexer.markMissing(missing);
    if (observe.length && this.stateValue === 'watching') {
      // Files appearing in a root found empty end its hold once they settle (they may be its files, moved back).
      this.missingHold.filesAppeared(observe.map((o) => o.relPath));
      this.ensureStability().observe(observe);
    }
  }

  /** A method, not a narrowed field read: close() may run while an await is pending. */
  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  /** After a transfer of this root ends: if the file changed meanwhile, it goes through the window again. */
  private async recheckAfterUpload(rel: string): Promise<void> {
    if (this.isClosed()) return;
    const obs = await this.observeFile(rel);
    if (this.isClosed()) return;
    const row = this.d.repo.getFile(this.id, rel);
    if (obs && row && !sameContent(row, obs) && this.stateValue === 'watching')
      this.ensureStability().observe([{ relPath: rel, obs }]);
  }

  private forEachQueued(fn: (transferId: number) => void): void {
    for (const r of this.d.repo.loadIndex(this.id).values())
      if (r.state === 'queued' && r.transferId !== null) fn(r.transferId);
  }

  // ---- presence of the folder, missing files ----

  private armHousekeeping(): void {
    if (this.housekeeping) return;
    const every = this.d.housekeepingMs ?? 1000;
    const graceMs = this.d.missingGraceMs ?? this.d.options.stabilityMs + 5000;
    this.housekeeping = setInterval(() => {
      runDetached(this.checkRoot(), 'watch root: presence check');
      if (this.stateValue !== 'watching') return;
      const cutoff = this.missingHold.cutoff(Date.now() - graceMs);
      if (cutoff !== undefined)
        runDetached(
          this.serial(() => this.indexer.finalizeMissing(cutoff)),
          'watch root: finalize missing files',
        );
    }, every);
    this.housekeeping.unref?.();
  }

  private checking = false;
  private async checkRoot(): Promise<void> {
    if (this.checking || this.stateValue === 'closed' || this.stateValue === 'paused' || this.stateValue === 'starting')
      return;
    this.checking = true;
    try {
      let problem: string | null = null;
      try {
        const s = await stat(this.rootPath);
        if (!s.isDirectory()) problem = `${this.rootPath} is not a folder any more`;
      } catch (e) {
        problem = rootUnavailable(this.rootPath, e).message;
      }
      if (problem && this.stateValue === 'watching') await this.goUnavailable(problem);
      else if (!problem && this.stateValue === 'unavailable') await this.start();
    } finally {
      this.checking = false;
    }
  }

  private async goUnavailable(reason: string): Promise<void> {
    await this.serial(() => this.stopWatching());
    this.setState('unavailable', reason);
    this.armHousekeeping();
  }
}
