import { failureDetail, sqliteFailureOf, type SqliteFailure } from '../base/sqlite-failure';
import { onUnexpectedError, runDetached } from '../base/unexpected-error';
import { backoffMs, type Backoff } from '../common/backoff';
import type { DiskFullWaits } from './disk-full-waits';
import type { WatchRootEvent } from './events';
import { problemEvent } from './problems';
import { StabilityTracker, type FileObservation, type PendingFile } from './stability';

export interface StableFilesDeps {
  rootId: number;
  /** How long a file must stay unchanged (WatchRootOptions.stabilityMs). */
  windowMs: number;
  /** The clock of the stability rule; default Date.now. */
  now?: () => number;
  observeFile(relPath: string): Promise<FileObservation | null>;
  /** Indexes and queues files that stopped changing (through the root's one-at-a-time work). */
  admit(files: Array<{ relPath: string; size: number; mtimeMs: number }>): Promise<unknown>;
  /** Whether the root is closing or closed (held files are dropped then: the next start's scan finds them). */
  closed(): boolean;
  diskFull: DiskFullWaits;
  emit(e: WatchRootEvent): void;
}

/** The waits between attempts of a batch the database refused for a reason other than a full disk. */
export const QUEUE_RETRY: Backoff = { baseMs: 500, maxMs: 30_000 };

/**
 * The problem code of files that stopped changing and cannot be queued yet, by the kind of
 * failure (its catalog template says what to do; its one param is the failure's `detail`).
 */
export function heldFilesCode(kind: SqliteFailure): 'queue-busy' | 'queue-io-error' | 'queue-damaged' | 'queue-failed' {
  switch (kind) {
    case 'busy':
      return 'queue-busy';
    case 'io':
      return 'queue-io-error';
    case 'corrupt':
      return 'queue-damaged';
    default:
      return 'queue-failed';
  }
}

/** The same for a folder's scan, held only by these two kinds (watch-root.ts). */
export function heldScanCode(kind: 'busy' | 'io'): 'scan-queue-busy' | 'scan-queue-io-error' {
  return kind === 'busy' ? 'scan-queue-busy' : 'scan-queue-io-error';
}

/**
 * The stability window of one watched root: files seen changing wait in it (stability.ts)
 * until they stop, then are admitted to the index. A batch the database refuses is never
 * dropped while the root is open: a full disk holds it (a problem, tried again every
 * DISK_FULL_RETRY_MS until there is room); another failure (another connection holding the
 * database, a disk error, a damaged file, a bug) holds it too, tried again after the one
 * backoff (QUEUE_RETRY), with a problem that says what to do. A row the database refuses
 * costs only its own file (root-indexer.ts). A closed database or a closing root ends the
 * wait without a word: the next start's scan finds the files. The window exists while the
 * root watches (`close()` drops it).
 */
export class StableFiles {
  private tracker: StabilityTracker | undefined;
  /** Batches held now, by kind of failure: a problem is said when the first of a kind is held. */
  private readonly held = new Map<SqliteFailure, number>();

  constructor(private readonly d: StableFilesDeps) {}

  /** Files waiting in the window. */
  get waiting(): number {
    return this.tracker?.waiting ?? 0;
  }

  /** What the window holds for a file: the size and mtime it waits with, and since when. */
  entry(relPath: string): PendingFile | undefined {
    return this.tracker?.entry(relPath);
  }

  has(relPath: string): boolean {
    return this.tracker?.has(relPath) ?? false;
  }

  /** A path is gone: forget it and what waited under it. */
  forget(relPath: string): void {
    this.tracker?.forget(relPath);
    this.tracker?.forgetUnder(relPath);
  }

  observe(files: Array<{ relPath: string; obs: FileObservation }>): void {
    this.ensure().observe(files);
  }

  close(): void {
    this.tracker?.close();
    this.tracker = undefined;
    this.held.clear();
  }

  private ensure(): StabilityTracker {
    this.tracker ??= new StabilityTracker({
      windowMs: this.d.windowMs,
      now: this.d.now,
      stat: (rel) => this.d.observeFile(rel),
      onReady: (files) =>
        runDetached(
          this.admit(files.map((f) => ({ relPath: f.relPath, size: f.obs.size, mtimeMs: f.obs.mtimeMs }))),
          'watch root: admit stable files',
        ),
    });
    return this.tracker;
  }

  private async admit(
    files: Array<{ relPath: string; size: number; mtimeMs: number }>,
    attempt = 0,
    said?: SqliteFailure,
  ): Promise<void> {
    try {
      await this.d.admit(files);
      if (said) this.count(said, -1);
    } catch (e) {
      if (this.d.closed()) return;
      const kind = sqliteFailureOf(e);
      if (kind === 'closed') return;
      if (kind !== 'disk-full') return this.hold(files, attempt, said, kind, e);
      if (said) this.count(said, -1);
      this.d.emit(problemEvent(this.d.rootId, files[0]?.relPath ?? '', 'queue-disk-full', { count: files.length }));
      this.d.diskFull.later(() => runDetached(this.admit(files), 'watch root: admit files held by a full disk'));
    }
  }

  /**
   * A batch refused for a reason other than a full disk waits QUEUE_RETRY's backoff and is
   * admitted again (what went through before the failure is in the index: it is not queued
   * twice). A problem is said when a kind of failure starts holding batches, not for each
   * batch or retry while it lasts; an unexpected failure (a bug) reaches the log through
   * onUnexpectedError too.
   */
  private hold(
    files: Array<{ relPath: string; size: number; mtimeMs: number }>,
    attempt: number,
    said: SqliteFailure | undefined,
    kind: SqliteFailure,
    e: unknown,
  ): void {
    if (kind !== said) {
      if (said) this.count(said, -1);
      if (this.count(kind, +1) === 1) {
        this.d.emit(
          problemEvent(this.d.rootId, files[0]?.relPath ?? '', heldFilesCode(kind), { detail: failureDetail(e) }),
        );
      }
      if (kind === 'other') onUnexpectedError(e, 'watch root: queue stable files');
    }
    this.d.diskFull.later(
      () => runDetached(this.admit(files, attempt + 1, kind), 'watch root: admit held files'),
      backoffMs(attempt, QUEUE_RETRY, Math.random()),
    );
  }

  private count(kind: SqliteFailure, by: 1 | -1): number {
    const n = Math.max(0, (this.held.get(kind) ?? 0) + by);
    this.held.set(kind, n);
    return n;
  }
}
