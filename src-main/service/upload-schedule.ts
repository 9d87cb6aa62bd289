import type { TransferControl, TransferQueue } from '../engine/api';
import { RUNNING_STATES } from '../engine/snapshot';
import type { TransferSnapshot } from '../shared/models';
import type { TransferQueryRepo } from '../store/transfer-query';
import { ALWAYS_RUN, checkSchedule, scheduleAt, type Schedule, type ScheduleState } from '../sync/schedule';
import type { Pauses } from './pauses';

export interface UploadScheduleDeps {
  queue: Pick<TransferQueue, 'onTransferChange'>;
  control: Pick<TransferControl, 'setBandwidthLimit'>;
  pauses: Pauses;
  repo: Pick<TransferQueryRepo, 'idsIn' | 'pausedFor' | 'pausedByOf'>;
  /** The clock the schedule is read with (local time); tests move it. */
  now?: () => Date;
}

/** The smaller of two limits, null meaning none. */
export function smallerLimit(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * Applies the weekly upload schedule to every transfer of the app (manual, CLI and watched
 * alike) and owns the engine's bandwidth limit: the effective limit is the smaller of the
 * user's (`setUserLimit`) and the schedule's at this moment.
 *
 * In a pause window every queued or running transfer is paused with reason 'schedule', and
 * so is each transfer queued meanwhile; when uploading runs again, the transfers paused
 * for 'schedule' (read from the database, so also those a previous run held) are resumed.
 * A transfer the user or its root paused is never resumed here (pauses.ts).
 * `close()` stops the timer and the subscription.
 */
export class UploadSchedule {
  private schedule: Schedule = ALWAYS_RUN;
  private userLimit: number | null = null;
  private state: (ScheduleState & { nextChangeAt: Date | null }) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => Date;
  private readonly unsubscribe: () => void;

  constructor(private readonly d: UploadScheduleDeps) {
    this.now = d.now ?? (() => new Date());
    this.unsubscribe = d.queue.onTransferChange((t) => this.onChange(t));
  }

  /** True while a pause window holds uploading. */
  holds(): boolean {
    return this.state?.running === false;
  }

  /** What the schedule says now (its own limit, not the user's). */
  get current(): { running: boolean; bytesPerSecond: number | null; nextChangeAt: number | null } {
    const s = this.state ?? { running: true, bytesPerSecond: null, nextChangeAt: null };
    return { running: s.running, bytesPerSecond: s.bytesPerSecond, nextChangeAt: s.nextChangeAt?.getTime() ?? null };
  }

  get effectiveLimit(): number | null {
    return smallerLimit(this.userLimit, this.state?.bytesPerSecond ?? null);
  }

  /** Sets both owners' inputs and applies them now (at open). Throws ScheduleError for a bad schedule. */
  start(schedule: Schedule | null, userLimit: number | null): ScheduleState {
    if (schedule) checkSchedule(schedule);
    this.schedule = schedule ?? ALWAYS_RUN;
    this.userLimit = userLimit;
    return this.apply();
  }

  /** Checks (ScheduleError) and applies a new schedule; null: always run. */
  setSchedule(schedule: Schedule | null): ScheduleState {
    if (schedule) checkSchedule(schedule);
    this.schedule = schedule ?? ALWAYS_RUN;
    return this.apply();
  }

  setUserLimit(bytesPerSecond: number | null): void {
    this.userLimit = bytesPerSecond;
    this.d.control.setBandwidthLimit(this.effectiveLimit);
  }

  /** Reads the schedule at this moment and acts on it; idempotent. */
  apply(): ScheduleState {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const at = scheduleAt(this.schedule, this.now());
    // Recorded first: the change listener reads it while transfers are paused and resumed.
    this.state = at;
    this.d.control.setBandwidthLimit(this.effectiveLimit);
    if (!at.running) {
      for (const id of this.d.repo.idsIn(['queued', ...RUNNING_STATES])) this.d.pauses.pause(id, 'schedule');
    } else {
      for (const id of this.d.repo.pausedFor('schedule')) this.d.pauses.resume(id, 'schedule');
    }
    if (at.nextChangeAt) {
      const delayMs = Math.max(1000, Math.min(at.nextChangeAt.getTime() - this.now().getTime(), 2 ** 31 - 1));
      this.timer = setTimeout(() => this.apply(), delayMs);
      this.timer.unref?.();
    }
    return { running: at.running, bytesPerSecond: at.bytesPerSecond };
  }

  private onChange(t: TransferSnapshot): void {
    // Whatever becomes active in a pause window is held (a transfer may already run when its
    // 'queued' event is delivered: the engine can start it from another listener's pause).
    if ((t.state === 'queued' || RUNNING_STATES.includes(t.state)) && this.holds())
      this.d.pauses.pause(t.id, 'schedule');
    // A running transfer the window paused may settle after the window ended: resume it then.
    else if (t.state === 'paused' && !this.holds() && this.d.repo.pausedByOf(t.id) === 'schedule')
      this.d.pauses.resume(t.id, 'schedule');
  }

  close(): void {
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
