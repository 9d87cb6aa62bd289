/**
 * When uploading runs and at what bandwidth: a pure function of a schedule and a moment,
 * so it is table-tested and the caller (the watch service) applies the answer through the
 * engine's limiter. No timers here; `nextChangeAt` tells the caller when to ask again.
 */

import type { Schedule, ScheduleState, ScheduleWindow } from '../shared/schedule';

export type { Schedule, ScheduleState, ScheduleWindow };

export const ALWAYS_RUN: Schedule = { outside: { action: 'run' }, windows: [] };

const MINUTES_PER_DAY = 24 * 60;

export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
  readonly code = 'invalid-schedule';
}

/** Throws ScheduleError naming the first bad window. */
export function checkSchedule(s: Schedule): void {
  s.windows.forEach((w, i) => {
    const where = `schedule window ${i + 1}`;
    for (const [name, v] of [
      ['startMinute', w.startMinute],
      ['endMinute', w.endMinute],
    ] as const) {
      if (!Number.isInteger(v) || v < 0 || v > MINUTES_PER_DAY)
        throw new ScheduleError(`${where}: ${name} must be a whole number of minutes 0…1440`);
    }
    if (w.startMinute === w.endMinute)
      throw new ScheduleError(`${where}: start and end are the same minute; the window would be empty`);
    if (w.days?.some((d) => !Number.isInteger(d) || d < 0 || d > 6))
      throw new ScheduleError(`${where}: days are 0 (Sunday) … 6 (Saturday)`);
    if (w.bytesPerSecond !== undefined && !(w.bytesPerSecond > 0))
      throw new ScheduleError(`${where}: bytesPerSecond must be above 0; use action "pause" to stop`);
  });
}

/** Parses "HH:MM" (00:00 … 24:00) into minutes from midnight. */
export function parseClock(text: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  const h = Number(m?.[1]);
  const min = Number(m?.[2]);
  if (!m || h > 24 || min > 59 || (h === 24 && min !== 0))
    throw new ScheduleError(`"${text}" is not a time of day; write it as HH:MM, e.g. 08:30`);
  return h * 60 + min;
}

function contains(w: ScheduleWindow, day: number, minute: number): boolean {
  const onDay = (d: number) => !w.days || w.days.length === 0 || w.days.includes(d);
  if (w.startMinute < w.endMinute) return onDay(day) && minute >= w.startMinute && minute < w.endMinute;
  // Crosses midnight: the evening part belongs to `day`, the morning part to the day before.
  if (minute >= w.startMinute) return onDay(day);
  return minute < w.endMinute && onDay((day + 6) % 7);
}

function stateOf(a: { action: 'run' | 'pause'; bytesPerSecond?: number }): ScheduleState {
  return a.action === 'pause'
    ? { running: false, bytesPerSecond: null }
    : { running: true, bytesPerSecond: a.bytesPerSecond ?? null };
}

/** The state at a day of the week (0 = Sunday) and minute of the day (local time is the caller's choice). */
export function scheduleStateAt(s: Schedule, day: number, minute: number): ScheduleState {
  const w = s.windows.find((x) => contains(x, day, minute));
  return stateOf(w ?? s.outside);
}

/** The state at `now` in local time, and the next minute boundary where it changes (within a week), if any. */
export function scheduleAt(s: Schedule, now: Date): ScheduleState & { nextChangeAt: Date | null } {
  const state = scheduleStateAt(s, now.getDay(), now.getHours() * 60 + now.getMinutes());
  const start = new Date(now);
  start.setSeconds(0, 0);
  for (let i = 1; i <= 7 * MINUTES_PER_DAY; i++) {
    const t = new Date(start.getTime() + i * 60_000);
    const next = scheduleStateAt(s, t.getDay(), t.getHours() * 60 + t.getMinutes());
    if (next.running !== state.running || next.bytesPerSecond !== state.bytesPerSecond)
      return { ...state, nextChangeAt: t };
  }
  return { ...state, nextChangeAt: null };
}
