import { backoffMs } from '../common/backoff';

/**
 * When to ask the service again about an Fmgr task or a VCA job. Pure functions: the
 * trackers feed them counters read from SQLite and get a delay back. One place decides.
 *
 * - Normal polling follows `scheduleMs`: fast at first (most tasks end within seconds),
 *   slower later; the last entry repeats.
 * - With push on (the submission carried a notify URL), polling is only a fallback in case
 *   the notification never reaches us: never faster than `pushFallbackMs`.
 * - After errors, exponential backoff from `errorBaseMs`, capped at `errorMaxMs`, with
 *   jitter in [50 %, 100 %] of the delay so that many tasks do not retry in lockstep.
 *   An error never makes the next poll sooner than the normal schedule would.
 * - An id the service keeps calling unknown (404) is given up ("lost") once it has been
 *   unknown for `notFoundGiveUpMs` AND at least `notFoundMinPolls` polls in a row said so.
 *   Both conditions, because a fresh id can be briefly unknown (an upload's persistentOps
 *   task may appear a little after mkfile answers), and because a machine that slept for
 *   an hour must not give up after one poll.
 */
export interface PollPolicy {
  scheduleMs: readonly number[];
  pushFallbackMs: number;
  errorBaseMs: number;
  errorMaxMs: number;
  notFoundGiveUpMs: number;
  notFoundMinPolls: number;
  /** Poll this soon after a notification arrived, to record the service's final code. */
  afterNotifyMs: number;
}

export const DEFAULT_POLL_POLICY: PollPolicy = {
  scheduleMs: [500, 1_000, 2_000, 3_000, 5_000, 10_000, 20_000, 30_000, 60_000],
  pushFallbackMs: 120_000,
  errorBaseMs: 2_000,
  errorMaxMs: 5 * 60_000,
  notFoundGiveUpMs: 10 * 60_000,
  notFoundMinPolls: 8,
  afterNotifyMs: 250,
};

export interface PollCounters {
  /** Polls answered so far (successful or not). */
  polls: number;
  /** Failed polls in a row (0 after a success). */
  consecutiveErrors: number;
  /** True when the service was asked to push a notification for this task. */
  push: boolean;
}

/** Delay in ms before the next poll. `random` returns a number in [0, 1). */
export function nextPollDelayMs(policy: PollPolicy, c: PollCounters, random: () => number = Math.random): number {
  const schedule = policy.scheduleMs;
  const last = schedule[schedule.length - 1] ?? 1_000;
  const normal = schedule[Math.max(0, Math.min(c.polls, schedule.length - 1))] ?? last;
  const base = c.push ? Math.max(normal, policy.pushFallbackMs) : normal;
  if (c.consecutiveErrors <= 0) return base;
  const jittered = backoffMs(
    c.consecutiveErrors - 1,
    { baseMs: policy.errorBaseMs, maxMs: policy.errorMaxMs },
    random(),
  );
  return Math.max(base, jittered);
}

/** True when an id that keeps being unknown should stop being polled (see the rule above). */
export function shouldGiveUpNotFound(
  policy: PollPolicy,
  s: { notFoundSinceMs: number | null; consecutiveErrors: number; nowMs: number },
): boolean {
  if (s.notFoundSinceMs === null) return false;
  return s.nowMs - s.notFoundSinceMs >= policy.notFoundGiveUpMs && s.consecutiveErrors >= policy.notFoundMinPolls;
}
