/**
 * The one backoff formula: an exponential delay, capped, with or without "equal jitter".
 * Pure: randomness comes in as a number in [0, 1). Used by the engine's retry policy, the
 * task poll policy, the emulator's notification retries and the door clients' reconnects.
 */
export interface Backoff {
  /** Delay of attempt 0, in ms. */
  baseMs: number;
  /** No delay is longer than this, in ms. */
  maxMs: number;
}

/**
 * Delay before retry number `attempt` (0-based): min(maxMs, baseMs·2^attempt). Given `random`
 * (in [0, 1)), half of it is fixed and half random ("equal jitter"), rounded to a whole ms, so
 * that many retries do not run in lockstep; a `random` that is not a finite number counts as 1.
 */
export function backoffMs(attempt: number, p: Backoff, random?: number): number {
  // 2^1023 is the largest finite power of two: beyond it the product would be NaN for a base of 0.
  const exp = Math.min(p.maxMs, p.baseMs * 2 ** Math.min(1023, Math.max(0, attempt)));
  if (random === undefined) return exp;
  const r = Number.isFinite(random) ? Math.min(1, Math.max(0, random)) : 1;
  return Math.round(exp / 2 + (exp / 2) * r);
}
