import { ERROR_CATALOG, formatMessage } from '../shared/errors';
import type { CoreProblem } from '../shared/events';
import type { TransferProgress } from '../shared/events';

/** At most one disk-full problem in this long (the engine retries each held transfer every ~2 s). */
export const DISK_FULL_PROBLEM_EVERY_MS = 30_000;

/**
 * Turns the engine's disk-full holds (a progress event whose retry's action is
 * `disk-full`) into a problem naming the database whose disk is full, so the user knows
 * what to free; repeated holds say it again at most every DISK_FULL_PROBLEM_EVERY_MS.
 */
export class DiskFullProblems {
  private lastAt = -Infinity;

  constructor(
    private readonly dbFile: string,
    private readonly problem: (p: CoreProblem) => void,
    private readonly now: () => number = Date.now,
    private readonly everyMs = DISK_FULL_PROBLEM_EVERY_MS,
  ) {}

  progress(p: TransferProgress & { retry?: { action: string } }): void {
    if (p.retry?.action !== 'disk-full') return;
    const t = this.now();
    if (t - this.lastAt < this.everyMs) return;
    this.lastAt = t;
    const params = { path: this.dbFile };
    this.problem({
      code: 'disk-full',
      message: formatMessage(ERROR_CATALOG['disk-full'].en, params),
      params,
      transferId: p.id,
    });
  }
}
