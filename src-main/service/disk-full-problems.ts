import { catalogMessage } from '../shared/errors';
import type { CoreProblem } from '../shared/events';
import type { TransferProgress } from '../shared/events';

/** At most one disk-full problem in this long (the engine retries each held transfer every ~2 s). */
export const DISK_FULL_PROBLEM_EVERY_MS = 30_000;

/**
 * Free space (for this user) under which the database's disk counts as full: a few commits'
 * worth. The app database writes its log into space it already holds, so a full disk can go
 * unnoticed by its writes for a while; the free space says it at once.
 */
export const DISK_FULL_FREE_BYTES = 8 * 1024 * 1024;

/** How often the free space of the database's disk is read (one statfs). */
export const DISK_FREE_CHECK_MS = 5_000;

/**
 * Turns the engine's disk-full holds (a progress event whose retry's action is
 * `disk-full`), and a database disk found with less than DISK_FULL_FREE_BYTES free, into a
 * problem naming the database whose disk is full, so the user knows what to free; repeated
 * holds or checks say it again at most every DISK_FULL_PROBLEM_EVERY_MS.
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
    if (p.retry?.action === 'disk-full') this.say(p.id);
  }

  /** The free space (bytes this user may write) of the database's disk, as just read. */
  freeSpace(bytes: number): void {
    if (bytes < DISK_FULL_FREE_BYTES) this.say(undefined);
  }

  private say(transferId: number | undefined): void {
    const t = this.now();
    if (t - this.lastAt < this.everyMs) return;
    this.lastAt = t;
    const params = { path: this.dbFile };
    this.problem({
      code: 'disk-full',
      message: catalogMessage('disk-full', params),
      params,
      ...(transferId !== undefined ? { transferId } : {}),
    });
  }
}
