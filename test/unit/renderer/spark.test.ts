import { describe, expect, it } from 'vitest';
import { sparkNote, sparkPoints } from '../../../src-renderer/screens/transfers/spark';
import { HISTORY_SECONDS } from '../../../src-renderer/store/transfers';

describe('throughput sparkline', () => {
  it('draws a line from the first sample on: the last sample holds until now', () => {
    expect(sparkPoints([], 10_000, 240, 40)).toEqual([]);
    // One batch half a second ago: a flat line at its height to the right edge.
    expect(sparkPoints([{ at: 9_500, bytesPerSecond: 2048 }], 10_000, 240, 40)).toEqual(['239.6,2.0', '240.0,2.0']);
    // A sample older than the window starts at the left edge.
    const old = 10_000 - HISTORY_SECONDS * 1000 - 5_000;
    expect(sparkPoints([{ at: old, bytesPerSecond: 0 }], 10_000, 240, 40)).toEqual(['0.0,38.0', '240.0,38.0']);
    // A sample taken now is not repeated.
    expect(sparkPoints([{ at: 10_000, bytesPerSecond: 0 }], 10_000, 240, 40)).toEqual(['240.0,38.0']);
  });

  it('says "measuring" while transfers run and nothing was measured, "idle" when none runs, nothing once a speed shows', () => {
    expect(sparkNote([], true)).toBe('measuring');
    expect(sparkNote([{ at: 1, bytesPerSecond: 0 }], true)).toBe('measuring');
    expect(sparkNote([], false)).toBe('idle');
    expect(
      sparkNote(
        [
          { at: 1, bytesPerSecond: 0 },
          { at: 2, bytesPerSecond: 10 },
        ],
        true,
      ),
    ).toBeNull();
    expect(sparkNote([{ at: 2, bytesPerSecond: 10 }], false)).toBeNull();
  });
});
