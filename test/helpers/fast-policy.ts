import type { PollPolicy } from '../../src-main/tasks/poll-policy';

/** Fast polling for tests; the shape of the schedule is the default's; a pushed task waits 30 s for its fallback poll. */
export const FAST_POLICY: PollPolicy = {
  scheduleMs: [10, 20, 40, 80],
  pushFallbackMs: 30_000,
  errorBaseMs: 20,
  errorMaxMs: 200,
  notFoundGiveUpMs: 300,
  notFoundMinPolls: 3,
  afterNotifyMs: 20,
};
