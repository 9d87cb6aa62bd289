import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../src-main/shared/schedule';
import {
  dayOrder,
  defaultLimitedRate,
  emptyGrid,
  gridFromSchedule,
  paint,
  scheduleFromGrid,
} from '../../../src-renderer/screens/settings/schedule-grid';

const MiB = 1024 * 1024;

describe('schedule grid model', () => {
  it('a grid at full speed everywhere is no schedule, and no schedule is such a grid', () => {
    expect(scheduleFromGrid(emptyGrid(), MiB)).toBeNull();
    expect(gridFromSchedule(null, MiB)).toEqual({ grid: emptyGrid(), limit: MiB });
  });

  it('paints a rectangle from either corner without changing the grid it was given', () => {
    const grid = emptyGrid();
    const painted = paint(grid, [3, 17], [1, 9], 'pause');
    expect(grid[2]![10]).toBe('run');
    for (let d = 0; d < 7; d++)
      for (let h = 0; h < 24; h++) expect(painted[d]![h]).toBe(d >= 1 && d <= 3 && h >= 9 && h <= 17 ? 'pause' : 'run');
  });

  it('writes one window per run of equal hours in a day, and reads it back to the same grid', () => {
    let grid = paint(emptyGrid(), [1, 9], [5, 17], 'limit'); // Mon–Fri 09–18 limited
    grid = paint(grid, [6, 0], [6, 23], 'pause'); // Saturday paused all day
    const schedule = scheduleFromGrid(grid, 2 * MiB)!;
    expect(schedule.outside).toEqual({ action: 'run' });
    expect(schedule.windows).toContainEqual({
      days: [1],
      startMinute: 540,
      endMinute: 1080,
      action: 'run',
      bytesPerSecond: 2 * MiB,
    });
    expect(schedule.windows).toContainEqual({ days: [6], startMinute: 0, endMinute: 1440, action: 'pause' });
    expect(schedule.windows).toHaveLength(6);
    expect(gridFromSchedule(schedule, MiB)).toEqual({ grid, limit: 2 * MiB });
  });

  it('reads windows that cross midnight and windows for every day', () => {
    const schedule: Schedule = {
      outside: { action: 'pause' },
      windows: [
        { days: [5], startMinute: 22 * 60, endMinute: 6 * 60, action: 'run' }, // Fri 22:00 → Sat 06:00
        { startMinute: 12 * 60, endMinute: 13 * 60, action: 'run', bytesPerSecond: 500 }, // every day at noon
      ],
    };
    const { grid, limit } = gridFromSchedule(schedule, MiB);
    expect(limit).toBe(500);
    expect(grid[5]![23]).toBe('run');
    expect(grid[6]![5]).toBe('run');
    expect(grid[6]![6]).toBe('pause');
    expect(grid[0]![12]).toBe('limit');
    expect(grid[3]![3]).toBe('pause');
  });

  it('orders the days from the locale first weekday', () => {
    expect(dayOrder(1)).toEqual([1, 2, 3, 4, 5, 6, 0]);
    expect(dayOrder(0)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('the limited level of a new schedule', () => {
  it('defaults to half the bandwidth limit, or 1 MiB/s without one', () => {
    expect(defaultLimitedRate(4 * MiB)).toBe(2 * MiB);
    expect(defaultLimitedRate(3)).toBe(1024);
    expect(defaultLimitedRate(null)).toBe(MiB);
    expect(gridFromSchedule(null, defaultLimitedRate(10 * MiB)).limit).toBe(5 * MiB);
  });
});
