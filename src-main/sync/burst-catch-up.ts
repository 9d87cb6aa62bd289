/**
 * Watcher events this many since a root's last full scan make a burst: enough for the OS's
 * event queue to overflow while the process is slow (Linux inotify keeps 16,384 events per
 * instance, about four per file written and renamed), and neither backend says when it did:
 * @parcel/watcher skips IN_Q_OVERFLOW, and a folder whose inotify watch could not be added
 * (the per-user watch limit) is left unwatched without an error. A file whose events were
 * dropped, or that appeared in a folder nobody watches, would then never reach the queue.
 */
export const BURST_EVENTS = 1000;

/** How long a burst must have been quiet before its catch-up runs (default). */
export const BURST_QUIET_MS = 1000;

/**
 * When a root catches up after a burst: once events since its last full scan reach
 * BURST_EVENTS and then stop for `quietMs`, `catchUp` runs (the root renews its watches and
 * scans again, which queues whatever the watcher lost). Each batch of events during the wait
 * starts the quiet period again; a full scan (`scanned()`) or `clear()` ends the wait.
 */
export class BurstCatchUp {
  private events = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly catchUp: () => void,
    private readonly quietMs = BURST_QUIET_MS,
  ) {}

  /** Whether a catch-up is waiting for the burst to go quiet. */
  get due(): boolean {
    return this.timer !== undefined;
  }

  /** `n` watcher events arrived. */
  note(n: number): void {
    this.events += n;
    if (this.events < BURST_EVENTS) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.events = 0;
      this.catchUp();
    }, this.quietMs);
  }

  /** A full scan started: it sees everything there now, so the count starts again. */
  scanned(): void {
    this.events = 0;
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.events = 0;
  }
}
