import { DISK_FULL_RETRY_MS } from '../base/disk-full';

/**
 * What a full disk under the database holds in one watch root: its full scan (one at a
 * time) and batches of stable files, each tried again every DISK_FULL_RETRY_MS until it goes
 * through or the root stops waiting (`clear()`: pause, unavailable, close). Batches held by
 * another database failure wait here too, with their own delay (stable-files.ts).
 */
export class DiskFullWaits {
  private readonly timers = new Set<NodeJS.Timeout>();
  private scanHeld = false;

  /** Holds the root's full scan: `retry` runs after `delayMs` (default DISK_FULL_RETRY_MS). False when a scan is held already. */
  holdScan(retry: () => void, delayMs = DISK_FULL_RETRY_MS): boolean {
    if (this.scanHeld) return false;
    this.scanHeld = true;
    this.later(() => {
      this.scanHeld = false;
      retry();
    }, delayMs);
    return true;
  }

  /** Runs `retry` after `delayMs` (default DISK_FULL_RETRY_MS), unless cleared first. */
  later(retry: () => void, delayMs = DISK_FULL_RETRY_MS): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      retry();
    }, delayMs);
    this.timers.add(t);
  }

  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.scanHeld = false;
  }
}
