import type { TransferProgressView } from '../shared/contract';

/**
 * Turns the engine's retry events into notices a person can read during an outage: said at
 * once, then again only when the reason changes or every 10 s (blocks in flight each retry
 * the same failure; one line says it). Only waits count (the retry's `action`
 * is 'retry', a backoff, or 'disk-full'); the reason loses the engine's "→ retry" suffix.
 */
export interface RetryNotice {
  id: number;
  reason: string;
  nextAttemptAt: number;
}

const REPEAT_MS = 10_000;
/** The retry actions that are waits: a backoff after a failure, or a hold until the disk has room. */
const WAITS = ['retry', 'disk-full'];

export class RetryNotices {
  private lastReason = '';
  private lastSaidAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The notice to show for this progress event, or undefined (no retry, or said just now). */
  accept(p: TransferProgressView): RetryNotice | undefined {
    // Only waits with backoff (network, timeout, 5xx, 429): a fresh token, a re-sent chunk or
    // a conflict rule is the normal course of an upload, not an outage.
    if (!p.retry || !WAITS.includes(p.retry.action)) return undefined;
    // The words without the engine's "→ retry" suffix (the notice says when the next attempt is).
    const reason = p.retry.reason.replace(/ → retry$/, '');
    const t = this.now();
    if (reason === this.lastReason && t - this.lastSaidAt < REPEAT_MS) return undefined;
    this.lastReason = reason;
    this.lastSaidAt = t;
    return { id: p.id, reason, nextAttemptAt: p.retry.nextAttemptAt };
  }
}

/** "14:03:07" in local time, for "next attempt at …". */
export function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}
