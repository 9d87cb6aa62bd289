import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLL_POLICY,
  nextPollDelayMs,
  shouldGiveUpNotFound,
  type PollPolicy,
} from '../../../src-main/tasks/poll-policy';

const P: PollPolicy = DEFAULT_POLL_POLICY;
const noJitter = () => 0.999999999;
const halfJitter = () => 0;

describe('nextPollDelayMs', () => {
  it.each([
    // polls, errors, push, random, expected
    [0, 0, false, noJitter, 500],
    [1, 0, false, noJitter, 1_000],
    [2, 0, false, noJitter, 2_000],
    [4, 0, false, noJitter, 5_000],
    [8, 0, false, noJitter, 60_000],
    [500, 0, false, noJitter, 60_000],
    // push on: polling is a slow fallback
    [0, 0, true, noJitter, 120_000],
    [20, 0, true, noJitter, 120_000],
    // errors back off exponentially from 2 s, never sooner than the schedule
    [0, 1, false, noJitter, 2_000],
    [0, 2, false, noJitter, 4_000],
    [0, 3, false, noJitter, 8_000],
    [8, 1, false, noJitter, 60_000],
    [8, 7, false, noJitter, 128_000],
    [8, 9, false, noJitter, 300_000],
    [8, 60, false, noJitter, 300_000],
    // jitter takes at most half off
    [0, 3, false, halfJitter, 4_000],
    [0, 1, false, halfJitter, 1_000],
  ] as const)('polls=%i errors=%i push=%s → delay', (polls, errors, push, random, expected) => {
    expect(nextPollDelayMs(P, { polls, consecutiveErrors: errors, push }, random)).toBe(expected);
  });

  it('is fast first and never faster later', () => {
    let prev = 0;
    for (let polls = 0; polls < 30; polls++) {
      const d = nextPollDelayMs(P, { polls, consecutiveErrors: 0, push: false });
      expect(d).toBeGreaterThanOrEqual(prev);
      prev = d;
    }
    expect(nextPollDelayMs(P, { polls: 0, consecutiveErrors: 0, push: false })).toBeLessThan(1_000);
  });

  it('survives a random source out of range', () => {
    expect(nextPollDelayMs(P, { polls: 0, consecutiveErrors: 2, push: false }, () => NaN)).toBe(4_000);
    expect(nextPollDelayMs(P, { polls: 0, consecutiveErrors: 2, push: false }, () => 7)).toBe(4_000);
  });
});

describe('shouldGiveUpNotFound', () => {
  const t0 = 1_000_000;
  it.each([
    [null, 100, t0 + 3_600_000, false], // never unknown
    [t0, 100, t0 + 60_000, false], // many polls but not long enough
    [t0, 3, t0 + 3_600_000, false], // long but only a few polls (machine slept)
    [t0, 8, t0 + 600_000, true],
    [t0, 20, t0 + 599_999, false],
  ] as const)('since=%s errors=%i now=%i → %s', (since, errors, now, expected) => {
    expect(shouldGiveUpNotFound(P, { notFoundSinceMs: since, consecutiveErrors: errors, nowMs: now })).toBe(expected);
  });
});
