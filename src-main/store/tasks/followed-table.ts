import type { Db } from '../db';
import type { ErrorUpdate, Tracking } from './rows';

/**
 * The follow-up columns that fmgr_tasks and vca_jobs share (tracking, errors, polls, next
 * poll, finished): one place writes them, for both tables. Returns raw rows; each repository
 * maps them to its own type.
 */
export class FollowedTable {
  constructor(
    private readonly db: Db,
    private readonly table: 'fmgr_tasks' | 'vca_jobs',
  ) {}

  /** Newest first; `tracking` filters, `limit` defaults to 200, `beforeId` pages. */
  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number }): unknown[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (opts.tracking) {
      where.push('tracking = ?');
      args.push(opts.tracking);
    }
    if (opts.beforeId !== undefined) {
      where.push('id < ?');
      args.push(opts.beforeId);
    }
    const sql = `SELECT * FROM ${this.table} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return this.db.prepare(sql).all(...args, opts.limit ?? 200);
  }

  /** Records a failed poll: the error stays visible until an answer arrives. */
  recordError(id: number, e: ErrorUpdate): void {
    this.db
      .prepare(
        `UPDATE ${this.table} SET error_code = ?, error_message = ?, error_at = ?, consecutive_errors = consecutive_errors + 1,
           not_found_since = CASE WHEN ? THEN COALESCE(not_found_since, ?) ELSE NULL END, polls = polls + 1, next_poll_at = ?,
           tracking = ?, finished_at = CASE WHEN ? = 'active' THEN NULL ELSE COALESCE(finished_at, ?) END, updated_at = ? WHERE id = ?`,
      )
      .run(
        e.code,
        e.message,
        e.nowMs,
        e.notFound ? 1 : 0,
        e.nowMs,
        e.nextPollAt,
        e.tracking,
        e.tracking,
        e.nowMs,
        e.nowMs,
        id,
      );
  }

  setNextPoll(id: number, nextPollAt: number | null): void {
    this.db.prepare(`UPDATE ${this.table} SET next_poll_at = ? WHERE id = ?`).run(nextPollAt, id);
  }

  setTracking(id: number, tracking: Tracking, nowMs: number): void {
    this.db
      .prepare(
        `UPDATE ${this.table} SET tracking = ?, next_poll_at = CASE WHEN ? = 'active' THEN next_poll_at ELSE NULL END,
           finished_at = CASE WHEN ? = 'active' THEN NULL ELSE COALESCE(finished_at, ?) END, updated_at = ? WHERE id = ?`,
      )
      .run(tracking, tracking, tracking, nowMs, nowMs, id);
  }
}
