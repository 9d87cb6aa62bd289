/**
 * The weekly upload schedule (types only, derived from schemas.ts; sync/schedule.ts holds
 * the pure functions that read it).
 */
import type { z } from 'zod';
import type { SCHEDULE, SCHEDULE_WINDOW } from './schemas';

/** One window of the week (its fields and rules: schemas.ts SCHEDULE_WINDOW). */
export type ScheduleWindow = z.output<typeof SCHEDULE_WINDOW>;

/** The weekly upload schedule: what happens outside every window, and the windows in order. */
export type Schedule = z.output<typeof SCHEDULE>;

export interface ScheduleState {
  running: boolean;
  /** Bandwidth cap in bytes per second while running, or null for none. */
  bytesPerSecond: number | null;
}
