import { describe, expect, it } from 'vitest';
import {
  ALWAYS_RUN,
  checkSchedule,
  parseClock,
  scheduleAt,
  scheduleStateAt,
  type Schedule,
} from '../../../src-main/sync/schedule';

const MiB = 1024 * 1024;
// Work hours Mon–Fri 09:00–18:00 limited to 1 MiB/s; nights 23:00–06:00 every day unlimited;
// Sunday all day paused; otherwise 5 MiB/s.
const s: Schedule = {
  outside: { action: 'run', bytesPerSecond: 5 * MiB },
  windows: [
    { days: [0], startMinute: 0, endMinute: 1440, action: 'pause' },
    { days: [1, 2, 3, 4, 5], startMinute: 9 * 60, endMinute: 18 * 60, action: 'run', bytesPerSecond: MiB },
    { startMinute: 23 * 60, endMinute: 6 * 60, action: 'run' },
  ],
};

describe('scheduleStateAt', () => {
  it.each([
    // day, minute, running, limit
    [1, 10 * 60, true, MiB], // Monday 10:00 work hours
    [1, 9 * 60 - 1, true, 5 * MiB], // Monday 08:59 outside
    [1, 18 * 60, true, 5 * MiB], // Monday 18:00, end is exclusive
    [6, 10 * 60, true, 5 * MiB], // Saturday 10:00, work window is weekdays only
    [0, 10 * 60, false, null], // Sunday paused
    [0, 23 * 60 + 30, false, null], // Sunday night: first window wins
    [3, 23 * 60 + 30, true, null], // Wednesday night: unlimited
    [4, 5 * 60, true, null], // Thursday 05:00: the night window that started Wednesday
    [1, 5 * 60, true, null], // Monday 05:00: the night that started Sunday (no days = every day)
    [4, 6 * 60, true, 5 * MiB], // Thursday 06:00: night over
  ])('day %i minute %i → running %s, limit %s', (day, minute, running, limit) => {
    expect(scheduleStateAt(s, day, minute)).toEqual({ running, bytesPerSecond: limit });
  });

  it('a window crossing midnight limited to some days covers the next morning of those days only', () => {
    const fri: Schedule = {
      outside: { action: 'pause' },
      windows: [{ days: [5], startMinute: 22 * 60, endMinute: 2 * 60, action: 'run' }],
    };
    expect(scheduleStateAt(fri, 5, 23 * 60).running).toBe(true);
    expect(scheduleStateAt(fri, 6, 60).running).toBe(true); // Saturday 01:00
    expect(scheduleStateAt(fri, 5, 60).running).toBe(false); // Friday 01:00 belongs to Thursday
  });

  it('ALWAYS_RUN runs unlimited', () => {
    expect(scheduleStateAt(ALWAYS_RUN, 2, 100)).toEqual({ running: true, bytesPerSecond: null });
  });
});

describe('scheduleAt', () => {
  it('gives the next change moment', () => {
    const mon0830 = new Date(2024, 0, 1, 8, 30, 15); // 1 Jan 2024 is a Monday
    const r = scheduleAt(s, mon0830);
    expect(r).toMatchObject({ running: true, bytesPerSecond: 5 * MiB });
    expect(r.nextChangeAt?.getHours()).toBe(9);
    expect(r.nextChangeAt?.getMinutes()).toBe(0);
  });
  it('says null when nothing ever changes', () => {
    expect(scheduleAt(ALWAYS_RUN, new Date()).nextChangeAt).toBeNull();
  });
});

describe('checkSchedule and parseClock', () => {
  it.each([
    [{ startMinute: -1, endMinute: 10, action: 'run' as const }, /startMinute/],
    [{ startMinute: 10, endMinute: 10, action: 'run' as const }, /same minute/],
    [{ startMinute: 0, endMinute: 10, action: 'run' as const, days: [7] }, /Saturday/],
    [{ startMinute: 0, endMinute: 10, action: 'run' as const, bytesPerSecond: 0 }, /pause/],
  ])('refuses %j', (w, msg) => {
    expect(() => checkSchedule({ outside: { action: 'run' }, windows: [w] })).toThrow(msg);
  });
  it('parses times', () => {
    expect(parseClock('08:30')).toBe(510);
    expect(parseClock('24:00')).toBe(1440);
    expect(() => parseClock('25:00')).toThrow(/HH:MM/);
    expect(() => parseClock('8h')).toThrow(/HH:MM/);
  });
});
