import { isDiskFull } from '../base/disk-full';
import { runDetached } from '../base/unexpected-error';
import type { DiskFullWaits } from './disk-full-waits';
import type { WatchRootEvent } from './events';
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
  /** Whether the root closed (held files are dropped then). */
  closed(): boolean;
  diskFull: DiskFullWaits;
  emit(e: WatchRootEvent): void;
}

/**
 * The stability window of one watched root: files seen changing wait in it (stability.ts)
 * until they stop, then are admitted to the index. A full disk under the database holds an
 * admission: a problem says so and it is tried again every DISK_FULL_RETRY_MS until there is
 * room or the root closes. The window exists while the root watches (`close()` drops it).
 */
export class StableFiles {
  private tracker: StabilityTracker | undefined;

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

  private async admit(files: Array<{ relPath: string; size: number; mtimeMs: number }>): Promise<void> {
    try {
      await this.d.admit(files);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      if (this.d.closed()) return;
      this.d.emit({
        type: 'problem',
        rootId: this.d.rootId,
        relPath: files[0]?.relPath ?? '',
        code: 'disk-full',
        message: `${files.length} file(s) wait: the disk holding the database is full; they are queued once space is freed`,
      });
      this.d.diskFull.later(() => runDetached(this.admit(files), 'watch root: admit files held by a full disk'));
    }
  }
}
