import type { Clock } from './contracts';

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that reads another one plus an adjustable offset. The emulator always runs on
 * one of these, so a test (directly, or through the admin route from another process)
 * can move time forward without waiting.
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly base: Clock = systemClock) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }

  /** Moves time forward (or back, with a negative value) by `ms`. */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`advance needs a finite number of ms, not ${ms}`);
    this.offsetMs += ms;
  }

  get offset(): number {
    return this.offsetMs;
  }
}

/** A clock that moves only when told to; for tests. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.now()) {}

  now(): number {
    return this.t;
  }

  advance(ms: number): void {
    this.t += ms;
  }

  set(ms: number): void {
    this.t = ms;
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;
