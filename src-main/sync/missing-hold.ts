/**
 * When the missing rows of a root may be finalized (deleted remotely / forgotten). Missing
 * rows are held while this says so: after a full scan whose files are still in the
 * stability window (one of them may be a rename of a missing row, claimable only once it
 * is stable), or after a scan that found the root empty (until files appear again and
 * settle). One per WatchRoot; it reads the stability tracker through `isWaiting`.
 */
export class MissingHold {
  private hold: { scanAtMs: number; waiting: Set<string>; emptyRoot: boolean } | undefined;

  constructor(private readonly isWaiting: (relPath: string) => boolean) {}

  /** After a full scan at `scanAtMs` that left `waiting` files in the stability window. */
  afterScan(scanAtMs: number, waiting: readonly string[]): void {
    this.hold = waiting.length > 0 ? { scanAtMs, waiting: new Set(waiting), emptyRoot: false } : undefined;
  }

  /** After a full scan that found the root empty although files had been uploaded from it. */
  emptyRoot(scanAtMs: number): void {
    this.hold = { scanAtMs, waiting: new Set(), emptyRoot: true };
  }

  /** Files appeared: a root found empty holds until they settle (they may be its files, moved back). */
  filesAppeared(relPaths: readonly string[]): void {
    if (this.hold?.emptyRoot) this.hold = { ...this.hold, emptyRoot: false, waiting: new Set(relPaths) };
  }

  /** Watching stopped: the next start or rescan scans again. */
  clear(): void {
    this.hold = undefined;
  }

  /**
   * Rows missing since the returned time or longer may be finalized now; undefined while
   * the hold lasts. Called outside the root's `serial`: a waiting file that left the tracker
   * has already queued its admit (StabilityTracker hands ready files on synchronously), so
   * a finalize queued now runs after it and a rename still claims its row. When the hold
   * ends, the rows gone at its scan are finalized at once (they were gone before it).
   */
  cutoff(graceCutoffMs: number): number | undefined {
    const hold = this.hold;
    if (!hold) return graceCutoffMs;
    if (hold.emptyRoot) return undefined;
    for (const p of hold.waiting) if (!this.isWaiting(p)) hold.waiting.delete(p);
    if (hold.waiting.size > 0) return undefined;
    this.hold = undefined;
    return Math.max(hold.scanAtMs, graceCutoffMs);
  }
}
