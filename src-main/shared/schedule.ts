/**
 * The weekly upload schedule (types only; sync/schedule.ts holds the pure functions that read it).
 */

/** One window of the week. Minutes count from local midnight; `endMinute` may be below `startMinute` (crosses midnight). */
export interface ScheduleWindow {
  /** Days the window starts on, 0 = Sunday … 6 = Saturday; empty or missing = every day. */
  days?: readonly number[];
  startMinute: number;
  endMinute: number;
  /** `pause`: no uploading in the window; `run`: uploading, limited to bytesPerSecond when given. */
  action: 'run' | 'pause';
  bytesPerSecond?: number;
}

export interface Schedule {
  /** What happens outside every window. */
  outside: { action: 'run' | 'pause'; bytesPerSecond?: number };
  /** Checked in order; the first window containing the moment wins. */
  windows: readonly ScheduleWindow[];
}

export interface ScheduleState {
  running: boolean;
  /** Bandwidth cap in bytes per second while running, or null for none. */
  bytesPerSecond: number | null;
}
