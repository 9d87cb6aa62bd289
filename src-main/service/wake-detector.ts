/**
 * Notices that the machine slept: a timer that checks the wall clock every `checkEveryMs`;
 * when more time passed between two checks than the interval plus `sleepGapMs`, the
 * process was suspended (timers do not run while the machine sleeps) and `onWake` is
 * called with the gap. The Electron layer can also call the core's rescan on powerMonitor
 * 'resume'; this detector covers the headless server and the CLI.
 */
export interface WakeDetectorOptions {
  onWake: (sleptMs: number) => void;
  /** Default 5,000 ms. */
  checkEveryMs?: number;
  /** A gap beyond the interval larger than this means the machine slept; default 30,000 ms. */
  sleepGapMs?: number;
  /** Wall clock in ms (tests inject one); default Date.now. */
  now?: () => number;
  /** Starts the repeating check; returns the function that stops it. Default: an unref'd setInterval. */
  every?: (fn: () => void, ms: number) => () => void;
}

export const WAKE_CHECK_EVERY_MS = 5000;
export const WAKE_SLEEP_GAP_MS = 30_000;

/** Starts the detector; returns the function that stops it (idempotent). */
export function startWakeDetector(o: WakeDetectorOptions): () => void {
  const checkEveryMs = o.checkEveryMs ?? WAKE_CHECK_EVERY_MS;
  const sleepGapMs = o.sleepGapMs ?? WAKE_SLEEP_GAP_MS;
  const now = o.now ?? Date.now;
  const every =
    o.every ??
    ((fn: () => void, ms: number) => {
      const t = setInterval(fn, ms);
      t.unref?.();
      return () => clearInterval(t);
    });
  let last = now();
  return every(() => {
    const t = now();
    const elapsedMs = t - last;
    last = t;
    if (elapsedMs > checkEveryMs + sleepGapMs) o.onWake(elapsedMs - checkEveryMs);
  }, checkEveryMs);
}
