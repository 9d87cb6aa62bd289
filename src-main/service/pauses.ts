import type { TransferControl, TransferQueue } from '../engine/api';
import type { PauseReason } from '../shared/contract';
import type { TransferQueryRepo } from '../store/transfer-query';

/**
 * Pausing and resuming transfers with a reason (user, schedule, root, error), recorded in
 * the database (transfers.paused_by, migration 005) so a restart knows who paused what.
 * Every pause and resume of the app goes through here, never straight to the engine.
 *
 * Rules:
 *   - a stronger reason replaces a weaker one on a transfer already paused
 *     (user > root > error > schedule): the user pausing a transfer the schedule held makes
 *     it the user's; a root paused in a pause window takes its transfers from the schedule;
 *   - `resume(id, by)` resumes only what `by` paused; the user resumes anything;
 *   - while the schedule holds uploading (`scheduleHolds()`), a resume hands the transfer
 *     to the schedule (paused_by 'schedule') instead of queueing it: it starts when the
 *     window ends.
 */
const RANK: Record<PauseReason, number> = { schedule: 1, error: 2, root: 3, user: 4 };

export interface PausesDeps {
  queue: Pick<TransferQueue, 'get'>;
  control: Pick<TransferControl, 'pause' | 'resume'>;
  repo: Pick<TransferQueryRepo, 'pausedByOf' | 'setPausedBy'>;
  /** True while the upload schedule holds every transfer (a pause window). */
  scheduleHolds: () => boolean;
}

export class Pauses {
  constructor(private readonly d: PausesDeps) {}

  /** Pauses a queued or running transfer for `reason`, or takes over a weaker pause. True when it changed. */
  pause(id: number, reason: PauseReason): boolean {
    const t = this.d.queue.get(id);
    if (!t) return false;
    const current = this.d.repo.pausedByOf(id);
    if (t.state === 'paused') {
      if (RANK[reason] <= RANK[current ?? 'user']) return false;
      this.d.repo.setPausedBy([id], reason);
      return true;
    }
    // Recorded before the engine's change event, so listeners of that event read the reason.
    this.d.repo.setPausedBy([id], reason);
    if (this.d.control.pause(id)) return true;
    this.d.repo.setPausedBy([id], current);
    return false;
  }

  /**
   * Resumes a transfer `by` paused (the user: any paused or failed one). True when it was
   * queued again or handed to the schedule.
   */
  resume(id: number, by: PauseReason): boolean {
    const t = this.d.queue.get(id);
    if (!t) return false;
    if (t.state === 'paused') {
      const current = this.d.repo.pausedByOf(id) ?? 'user';
      if (by !== 'user' && current !== by) return false;
      if (by !== 'schedule' && this.d.scheduleHolds()) {
        if (current === 'schedule') return false;
        this.d.repo.setPausedBy([id], 'schedule');
        return true;
      }
    } else if (t.state !== 'failed' || by !== 'user') {
      return false;
    }
    this.d.repo.setPausedBy([id], null);
    return this.d.control.resume(id);
  }
}
