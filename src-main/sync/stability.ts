/**
 * Write-finish detection: a file is handed on only once its size and mtime have stayed the
 * same for the stability window, so a recording or a copy in progress waits.
 */
import { runDetached } from '../base/unexpected-error';

export interface FileObservation {
  size: number;
  mtimeMs: number;
}

export interface PendingFile extends FileObservation {
  /** When this (size, mtime) was first observed. */
  sinceMs: number;
}

/**
 * The pure rule. A file seen for the first time whose mtime is already `windowMs` old is
 * ready at once; otherwise it is ready when the same (size, mtime) has been observed for
 * `windowMs`. Any change starts the wait again. A window of 0 makes every file ready.
 */
export function stabilityVerdict(
  prev: PendingFile | undefined,
  obs: FileObservation,
  nowMs: number,
  windowMs: number,
): { ready: boolean; entry: PendingFile } {
  const same = prev !== undefined && prev.size === obs.size && prev.mtimeMs === obs.mtimeMs;
  if (same) return { ready: nowMs - prev.sinceMs >= windowMs, entry: prev };
  const entry = { size: obs.size, mtimeMs: obs.mtimeMs, sinceMs: nowMs };
  const ready = windowMs === 0 || (prev === undefined && nowMs - obs.mtimeMs >= windowMs);
  return { ready, entry };
}

export interface StabilityTrackerOptions {
  windowMs: number;
  /** Current size and mtime of the file, or null when it is gone (or not a file any more). */
  stat(relPath: string): Promise<FileObservation | null>;
  /** Files that became ready, in batches (so the caller writes them in one transaction). */
  onReady(files: Array<{ relPath: string; obs: FileObservation }>): void;
  /** A file that disappeared while it was waiting. */
  onGone?(relPath: string): void;
  onError?(err: unknown): void;
  now?: () => number;
}

const STAT_BATCH = 64;

/**
 * Holds the files that are waiting and re-checks them with one timer. `close()` stops the
 * timer; nothing is called after it resolves.
 */
export class StabilityTracker {
  private readonly pending = new Map<string, PendingFile>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private closed = false;
  private readonly now: () => number;
  private readonly pollMs: number;

  constructor(private readonly opts: StabilityTrackerOptions) {
    this.now = opts.now ?? Date.now;
    this.pollMs = Math.min(1000, Math.max(25, Math.floor(opts.windowMs / 4)));
  }

  get waiting(): number {
    return this.pending.size;
  }

  has(relPath: string): boolean {
    return this.pending.has(relPath);
  }

  /** The observation a waiting file waits with, and since when; undefined when it is not waiting. */
  entry(relPath: string): PendingFile | undefined {
    const e = this.pending.get(relPath);
    return e && { ...e };
  }

  /**
   * Adds or refreshes files with what the caller just saw. Ready ones are handed on (in one
   * batch, synchronously); the others wait. Returns the number that were ready.
   */
  observe(files: ReadonlyArray<{ relPath: string; obs: FileObservation }>): number {
    if (this.closed) return 0;
    const now = this.now();
    const ready: Array<{ relPath: string; obs: FileObservation }> = [];
    // One decision per path: a path listed twice (a folder scan and the file's own event) counts once.
    const unique = new Map<string, FileObservation>();
    for (const f of files) unique.set(f.relPath, f.obs);
    for (const [relPath, obs] of unique) {
      const f = { relPath, obs };
      const v = stabilityVerdict(this.pending.get(f.relPath), f.obs, now, this.opts.windowMs);
      if (v.ready) {
        this.pending.delete(f.relPath);
        ready.push(f);
      } else {
        this.pending.set(f.relPath, v.entry);
      }
    }
    if (ready.length) this.opts.onReady(ready);
    this.arm();
    return ready.length;
  }

  /** Stops waiting for a file (it was deleted, or is now ignored). */
  forget(relPath: string): void {
    this.pending.delete(relPath);
  }

  /** Stops waiting for every file under a folder ('' for all). */
  forgetUnder(relDir: string): void {
    for (const p of this.pending.keys()) if (relDir === '' || p.startsWith(`${relDir}/`)) this.pending.delete(p);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  private arm(): void {
    if (this.closed || this.timer || this.running || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      runDetached(this.tick(), 'sync stability check');
    }, this.pollMs);
  }

  private async tick(): Promise<void> {
    this.running = true;
    try {
      const now = this.now();
      const due = [...this.pending].filter(([, e]) => now - e.sinceMs >= this.opts.windowMs).map(([p]) => p);
      for (let i = 0; i < due.length && !this.closed; i += STAT_BATCH) {
        const slice = due.slice(i, i + STAT_BATCH);
        const stats = await Promise.all(slice.map((p) => this.opts.stat(p).catch(() => null)));
        if (this.closed) return;
        const seen: Array<{ relPath: string; obs: FileObservation }> = [];
        slice.forEach((relPath, j) => {
          if (!this.pending.has(relPath)) return;
          const obs = stats[j];
          if (obs) seen.push({ relPath, obs });
          else {
            this.pending.delete(relPath);
            this.opts.onGone?.(relPath);
          }
        });
        this.observe(seen);
      }
    } catch (e) {
      this.opts.onError?.(e);
    } finally {
      this.running = false;
      this.arm();
    }
  }
}
