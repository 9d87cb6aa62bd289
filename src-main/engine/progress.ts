import type { ProgressEvent } from './api';

/**
 * Progress of one transfer: bytes acknowledged, speed as a moving average over the last
 * `windowMs`, and the time left at that speed. `shouldEmit` throttles listeners to at most
 * one update per `minIntervalMs` (100 ms: ~10 a second) per transfer.
 */
export class ProgressTracker {
  private readonly samples: Array<{ atMs: number; bytes: number }> = [];
  private lastEmitMs = -Infinity;

  constructor(
    public bytesDone: number,
    public totalBytes: number,
    private readonly opts: { windowMs?: number; minIntervalMs?: number } = {},
  ) {}

  /** Adds acknowledged bytes at time `nowMs`. */
  add(bytes: number, nowMs: number): void {
    this.bytesDone += bytes;
    this.samples.push({ atMs: nowMs, bytes: this.bytesDone });
    const windowMs = this.opts.windowMs ?? 5000;
    while (this.samples.length > 2 && this.samples[0]!.atMs < nowMs - windowMs) this.samples.shift();
  }

  /** Sets bytesDone back (a block restarted); the speed window starts over. */
  setDone(bytes: number): void {
    this.bytesDone = bytes;
    this.samples.length = 0;
  }

  /** Sets the bytes acknowledged out of `total`: forward adds a sample, back (a restart) starts over. */
  moveTo(bytesDone: number, total: number, nowMs: number): void {
    this.totalBytes = total;
    if (bytesDone >= this.bytesDone) this.add(bytesDone - this.bytesDone, nowMs);
    else this.setDone(bytesDone);
  }

  /** What listeners of transfer `id` get now; with `retry`, the notice of a retry (no ETA then). */
  event(id: number, nowMs: number, retry?: ProgressEvent['retry']): ProgressEvent {
    const ev: ProgressEvent = {
      id,
      bytesDone: this.bytesDone,
      size: this.totalBytes,
      speed: this.speed(nowMs),
      etaSeconds: retry ? null : this.etaSeconds(nowMs),
    };
    if (retry) ev.retry = retry;
    return ev;
  }

  /** Bytes per second over the window, 0 when unknown or idle. */
  speed(nowMs: number): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || first === last) return 0;
    const windowMs = this.opts.windowMs ?? 5000;
    if (nowMs - last.atMs > windowMs) return 0;
    const spanMs = Math.max(nowMs, last.atMs) - first.atMs;
    return spanMs > 0 ? ((last.bytes - first.bytes) * 1000) / spanMs : 0;
  }

  /** Seconds left at the current speed, or null when the speed is unknown. */
  etaSeconds(nowMs: number): number | null {
    const s = this.speed(nowMs);
    if (s <= 0) return this.bytesDone >= this.totalBytes ? 0 : null;
    return Math.max(0, (this.totalBytes - this.bytesDone) / s);
  }

  /** True (and records the emission) when an update may go out at `nowMs`. */
  shouldEmit(nowMs: number, force = false): boolean {
    if (!force && nowMs - this.lastEmitMs < (this.opts.minIntervalMs ?? 100)) return false;
    this.lastEmitMs = nowMs;
    return true;
  }
}
