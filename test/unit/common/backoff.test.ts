import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../../src-main/common/backoff';

describe('backoffMs', () => {
  const p = { baseMs: 500, maxMs: 10_000 };
  it.each([
    [0, undefined, 500],
    [1, undefined, 1_000],
    [4, undefined, 8_000],
    [5, undefined, 10_000],
    [-3, undefined, 500],
    [5000, undefined, 10_000],
    [2, 0, 1_000],
    [2, 0.5, 1_500],
    [2, 0.999, 1_999],
    [2, Number.NaN, 2_000],
    [2, 7, 2_000],
    [2, -1, 1_000],
  ])('attempt %s, random %s → %s ms', (attempt, random, want) => {
    expect(backoffMs(attempt, p, random)).toBe(want);
  });

  it('a base of 0 never gives NaN, however many attempts', () => {
    expect(backoffMs(1e6, { baseMs: 0, maxMs: 1000 })).toBe(0);
  });
});
