import type { Tracking } from '../store/tasks/rows';
import type { PollFailure } from './poll-errors';
import { nextPollDelayMs, shouldGiveUpNotFound, type PollPolicy } from './poll-policy';

/**
 * What happens to a task or job after a failed poll (the shared rule of both trackers):
 * a fatal error ends the follow-up ('failed'); an unknown id past the give-up rule is
 * 'lost'; anything else keeps it as it was and asks again after the backoff delay.
 */
export function decideAfterError(
  policy: PollPolicy,
  t: { tracking: Tracking; polls: number; consecutiveErrors: number; notFoundSince: number | null },
  f: PollFailure,
  push: boolean,
  nowMs: number,
  random: () => number,
): { tracking: Tracking; delayMs: number } {
  const consecutiveErrors = t.consecutiveErrors + 1;
  let tracking = t.tracking;
  if (f.cls === 'fatal') tracking = 'failed';
  else if (
    f.cls === 'not-found' &&
    shouldGiveUpNotFound(policy, { notFoundSinceMs: t.notFoundSince ?? nowMs, consecutiveErrors, nowMs })
  )
    tracking = 'lost';
  return { tracking, delayMs: nextPollDelayMs(policy, { polls: t.polls + 1, consecutiveErrors, push }, random) };
}
