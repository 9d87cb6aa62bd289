/**
 * The weekly schedule as a grid of 7 days × 24 hours, each hour at one of three levels: full
 * speed, limited (one shared limit in bytes per second), or paused. Pure functions: read a
 * `Schedule` into a grid, paint a rectangle of cells, and write the grid back as a `Schedule`
 * (one window per run of equal hours in a day; outside every window: full speed).
 */
import type { Schedule, ScheduleWindow } from '../../../src-main/shared/schedule';

export type Level = 'run' | 'limit' | 'pause';
/** cells[day][hour], day 0 = Sunday … 6 = Saturday (the schedule's own numbering). */
export type Grid = Level[][];

export const DAYS = 7;
export const HOURS = 24;

export function emptyGrid(level: Level = 'run'): Grid {
  return Array.from({ length: DAYS }, () => Array.from({ length: HOURS }, () => level));
}

function inWindow(w: ScheduleWindow, day: number, minute: number): boolean {
  const days = w.days && w.days.length > 0 ? w.days : [0, 1, 2, 3, 4, 5, 6];
  if (w.startMinute < w.endMinute) return days.includes(day) && minute >= w.startMinute && minute < w.endMinute;
  // Crosses midnight: the evening of a listed day, or the early hours of the day after one.
  return (days.includes(day) && minute >= w.startMinute) || (days.includes((day + 6) % 7) && minute < w.endMinute);
}

const levelOf = (rule: { action: 'run' | 'pause'; bytesPerSecond?: number }): Level =>
  rule.action === 'pause' ? 'pause' : rule.bytesPerSecond !== undefined ? 'limit' : 'run';

/**
 * The rate of the "limited" level when the schedule has none yet: half the user's bandwidth
 * limit (so limited hours are visibly slower than the rest), or 1 MiB/s without a limit.
 */
export function defaultLimitedRate(bandwidthLimit: number | null): number {
  return bandwidthLimit !== null && bandwidthLimit > 0 ? Math.max(1024, Math.round(bandwidthLimit / 2)) : 1024 * 1024;
}

/**
 * The grid of a schedule (each hour read at its middle) and its limit: the first limit any
 * rule has, or `defaultLimit`. A schedule with several different limits keeps only that one.
 */
export function gridFromSchedule(schedule: Schedule | null, defaultLimit: number): { grid: Grid; limit: number } {
  if (!schedule) return { grid: emptyGrid(), limit: defaultLimit };
  const limit =
    [schedule.outside, ...schedule.windows].find((r) => r.action === 'run' && r.bytesPerSecond !== undefined)
      ?.bytesPerSecond ?? defaultLimit;
  const grid = emptyGrid();
  for (let day = 0; day < DAYS; day++) {
    for (let hour = 0; hour < HOURS; hour++) {
      const minute = hour * 60 + 30;
      const rule = schedule.windows.find((w) => inWindow(w, day, minute)) ?? schedule.outside;
      grid[day]![hour] = levelOf(rule);
    }
  }
  return { grid, limit };
}

/** The grid as a schedule; a grid all at full speed is no schedule (null). */
export function scheduleFromGrid(grid: Grid, limit: number): Schedule | null {
  const windows: ScheduleWindow[] = [];
  for (let day = 0; day < DAYS; day++) {
    let hour = 0;
    while (hour < HOURS) {
      const level = grid[day]![hour]!;
      let end = hour + 1;
      while (end < HOURS && grid[day]![end] === level) end++;
      if (level !== 'run') {
        windows.push({
          days: [day],
          startMinute: hour * 60,
          endMinute: end * 60, // 1440 at the end of the day

          action: level === 'pause' ? 'pause' : 'run',
          ...(level === 'limit' ? { bytesPerSecond: limit } : {}),
        });
      }
      hour = end;
    }
  }
  return windows.length === 0 ? null : { outside: { action: 'run' }, windows };
}

/** Paints the rectangle between two cells (either corner first) with a level; returns a new grid. */
export function paint(grid: Grid, from: [number, number], to: [number, number], level: Level): Grid {
  const [d0, d1] = from[0] <= to[0] ? [from[0], to[0]] : [to[0], from[0]];
  const [h0, h1] = from[1] <= to[1] ? [from[1], to[1]] : [to[1], from[1]];
  return grid.map((hours, day) =>
    day < d0 || day > d1 ? hours : hours.map((cell, hour) => (hour >= h0 && hour <= h1 ? level : cell)),
  );
}

/** The days in display order for a first weekday (0 = Sunday). */
export function dayOrder(firstDay: number): number[] {
  return Array.from({ length: DAYS }, (_, i) => (firstDay + i) % DAYS);
}
