/**
 * Bandwidth limit shared by every transfer of an engine: a token bucket kept as a virtual
 * clock. Each `take(bytes)` reserves the next `bytes / rate` seconds of the link, in FIFO
 * order, and resolves when its reservation starts; so over any window longer than one
 * chunk the bytes let through stay within `rate × window + burst`. A limit of null lets
 * everything through at once. `setRate` applies to reservations still waiting: they are
 * re-planned from now at the new rate. A wait that aborts (a transfer paused or canceled)
 * gives its reserved time back: the reservations behind it move up, so pausing and resuming
 * quickly does not leave the link reserved for chunks that were never sent.
 */

interface Waiter {
  bytes: number;
  /** When its reservation starts (ms, the limiter's clock). */
  startMs: number;
  resolve: () => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class BandwidthLimiter {
  private bytesPerSecond: number | null;
  /** Time (ms) at which the link is free for the next reservation. */
  private cursorMs = 0;
  private readonly waiters: Waiter[] = [];
  private readonly burstMs: number;

  constructor(bytesPerSecond: number | null = null, opts: { burstMs?: number; now?: () => number } = {}) {
    this.bytesPerSecond = normalize(bytesPerSecond);
    this.burstMs = opts.burstMs ?? 100;
    this.now = opts.now ?? (() => performance.now());
  }

  private readonly now: () => number;

  get rate(): number | null {
    return this.bytesPerSecond;
  }

  /** Changes the limit (null: none); waiting reservations are re-planned at the new rate. */
  setRate(bytesPerSecond: number | null): void {
    this.bytesPerSecond = normalize(bytesPerSecond);
    this.replan(0, this.now());
  }

  /** Resolves when `bytes` may be sent; rejects with the signal's reason when it aborts. */
  take(bytes: number, signal?: AbortSignal): Promise<void> {
    if (this.bytesPerSecond === null || bytes <= 0) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { bytes, startMs: 0, resolve, reject, timer: undefined, signal, onAbort: () => undefined };
      w.onAbort = () => {
        clearTimeout(w.timer);
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.giveBack(i);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', w.onAbort, { once: true });
      this.schedule(w);
    });
  }

  /**
   * Removes the waiting reservation at `i` and plans the ones behind it again from where it
   * started (the waiters are in reservation order, each starting where the one before ends).
   */
  private giveBack(i: number): void {
    const [gone] = this.waiters.splice(i, 1);
    this.replan(i, gone!.startMs);
  }

  /** Plans the waiting reservations from index `from` on again, the first starting at `cursorMs`. */
  private replan(from: number, cursorMs: number): void {
    const pending = this.waiters.splice(from);
    this.cursorMs = cursorMs;
    for (const w of pending) {
      clearTimeout(w.timer);
      this.schedule(w);
    }
  }

  private schedule(w: Waiter): void {
    const done = () => {
      w.signal?.removeEventListener('abort', w.onAbort);
      const i = this.waiters.indexOf(w);
      if (i >= 0) this.waiters.splice(i, 1);
      w.resolve();
    };
    if (this.bytesPerSecond === null) {
      done();
      return;
    }
    const now = this.now();
    const start = Math.max(this.cursorMs, now - this.burstMs);
    w.startMs = start;
    this.cursorMs = start + (w.bytes * 1000) / this.bytesPerSecond;
    const waitMs = start - now;
    if (waitMs <= 0) {
      done();
      return;
    }
    this.waiters.push(w);
    w.timer = setTimeout(done, waitMs);
  }

  /** Rejects every waiting reservation (engine shutdown). */
  close(reason: unknown = new Error('bandwidth limiter closed')): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.signal?.removeEventListener('abort', w.onAbort);
      w.reject(reason);
    }
  }
}

function normalize(v: number | null): number | null {
  if (v === null) return null;
  if (!Number.isFinite(v) || v <= 0)
    throw new RangeError(`bandwidth limit must be a positive number of bytes per second, or none; not ${v}`);
  return v;
}
