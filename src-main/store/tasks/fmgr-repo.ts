import type { Db } from '../db';
import type { FmgrItemView, FmgrTaskFor } from '../../shared/task-views';
import { FollowedTable } from './followed-table';
import type { FmgrTaskStatus } from '../../protocol/types';
import { readFollowUp, reader, type ErrorUpdate, type FollowUp, type Tracking } from './rows';

/**
 * Fmgr tasks in SQLite (tables of migration 002): one row per (account, persistentId), the
 * latest item results, and every distinct status body in arrival order. All writes of one
 * status are one transaction. Codes are stored raw; tasks/fmgr-view.ts names them.
 */

export type FmgrOrigin = 'typed' | 'submitted' | 'upload' | 'notification';
const ORIGINS: readonly FmgrOrigin[] = ['typed', 'submitted', 'upload', 'notification'];
export type StatusSource = 'poll' | 'notify';
const SOURCES: readonly StatusSource[] = ['poll', 'notify'];

export interface FmgrTaskRow extends FollowUp {
  id: number;
  accountId: number;
  mgrUrl: string | null;
  persistentId: string;
  origin: FmgrOrigin;
  op: string | null;
  fops: string | null;
  notifyUrl: string | null;
  code: number | null;
  codeSource: StatusSource | null;
  description: string | null;
  separate: string | null;
  /** The transfer the engine submitted this task for (migration 9), and the key it wrote or removed; null otherwise. */
  forTransfer: FmgrTaskFor | null;
}

/** An item as stored: its view (shared/task-views.ts) without the derived state name. */
export type FmgrItemRow = Omit<FmgrItemView, 'state'>;

export interface FmgrSnapshotRow {
  id: number;
  source: StatusSource;
  code: number;
  body: FmgrTaskStatus;
  firstSeenAt: number;
  lastSeenAt: number;
  seenCount: number;
}

export interface NewFmgrTask {
  accountId: number;
  persistentId: string;
  origin: FmgrOrigin;
  mgrUrl?: string;
  op?: string;
  fops?: string;
  notifyUrl?: string;
  forTransfer?: FmgrTaskFor;
}

export interface StatusUpdate {
  source: StatusSource;
  tracking: Tracking;
  nextPollAt: number | null;
  nowMs: number;
}

function toTask(raw: unknown): FmgrTaskRow {
  const r = reader('fmgr_tasks', raw);
  return {
    id: r.int('id'),
    accountId: r.int('account_id'),
    mgrUrl: r.optStr('mgr_url'),
    persistentId: r.str('persistent_id'),
    origin: r.oneOf('origin', ORIGINS),
    op: r.optStr('op'),
    fops: r.optStr('fops'),
    notifyUrl: r.optStr('notify_url'),
    code: r.optInt('code'),
    codeSource: r.optOneOf('code_source', SOURCES),
    description: r.optStr('description'),
    separate: r.optStr('separate'),
    forTransfer: forTransferOf(r.optInt('for_transfer_id'), r.optStr('for_transfer_key')),
    ...readFollowUp(r),
  };
}

function forTransferOf(transferId: number | null, key: string | null): FmgrTaskFor | null {
  return transferId === null || key === null ? null : { transferId, key };
}

function toItem(raw: unknown): FmgrItemRow {
  const r = reader('fmgr_task_items', raw);
  return {
    index: r.int('idx'),
    cmd: r.str('cmd'),
    code: r.int('code'),
    description: r.str('description'),
    error: r.optStr('error'),
    hash: r.optStr('hash'),
    fsize: r.optInt('fsize'),
    key: r.optStr('key'),
    url: r.optStr('url'),
    decompresslist: r.optStr('decompresslist'),
  };
}

function toSnapshot(raw: unknown): FmgrSnapshotRow {
  const r = reader('fmgr_snapshots', raw);
  return {
    id: r.int('id'),
    source: r.oneOf('source', SOURCES),
    code: r.int('code'),
    body: JSON.parse(r.str('body_json')) as FmgrTaskStatus,
    firstSeenAt: r.int('first_seen_at'),
    lastSeenAt: r.int('last_seen_at'),
    seenCount: r.int('seen_count'),
  };
}

const emptyToNull = (s: string | undefined) => (s === undefined || s === '' ? null : s);

export class FmgrRepo {
  private readonly followed: FollowedTable;

  constructor(private readonly db: Db) {
    this.followed = new FollowedTable(db, 'fmgr_tasks');
  }

  /**
   * Returns the task of (accountId, persistentId), creating it when new. An existing task
   * keeps its origin; submission details given now fill columns that were empty, and a task
   * tracked again after it was stopped, lost or failed becomes active with a fresh error count.
   */
  ensure(t: NewFmgrTask, nowMs: number): { task: FmgrTaskRow; created: boolean } {
    return this.db.transaction(() => {
      const existing = this.find(t.accountId, t.persistentId);
      if (existing) {
        this.db
          .prepare(
            `UPDATE fmgr_tasks SET mgr_url = COALESCE(mgr_url, ?), op = COALESCE(op, ?), fops = COALESCE(fops, ?),
               notify_url = COALESCE(notify_url, ?),
               not_found_since = CASE WHEN tracking IN ('stopped','lost','failed') THEN NULL ELSE not_found_since END,
               consecutive_errors = CASE WHEN tracking IN ('stopped','lost','failed') THEN 0 ELSE consecutive_errors END,
               finished_at = CASE WHEN tracking IN ('stopped','lost','failed') THEN NULL ELSE finished_at END,
               tracking = CASE WHEN tracking IN ('stopped','lost','failed') THEN 'active' ELSE tracking END,
               updated_at = ? WHERE id = ?`,
          )
          .run(t.mgrUrl ?? null, t.op ?? null, t.fops ?? null, t.notifyUrl ?? null, nowMs, existing.id);
        return { task: this.mustGet(existing.id), created: false };
      }
      const info = this.db
        .prepare(
          `INSERT INTO fmgr_tasks (account_id, mgr_url, persistent_id, origin, op, fops, notify_url, for_transfer_id,
             for_transfer_key, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          t.accountId,
          t.mgrUrl ?? null,
          t.persistentId,
          t.origin,
          t.op ?? null,
          t.fops ?? null,
          t.notifyUrl ?? null,
          t.forTransfer?.transferId ?? null,
          t.forTransfer?.key ?? null,
          nowMs,
          nowMs,
        );
      return { task: this.mustGet(Number(info.lastInsertRowid)), created: true };
    })();
  }

  get(id: number): FmgrTaskRow | undefined {
    const raw = this.db.prepare('SELECT * FROM fmgr_tasks WHERE id = ?').get(id);
    return raw === undefined ? undefined : toTask(raw);
  }

  mustGet(id: number): FmgrTaskRow {
    const t = this.get(id);
    if (!t) throw new RangeError(`no Fmgr task with row id ${id}`);
    return t;
  }

  /** The row of a persistentId in any account: the most recently updated when several accounts have it. */
  findByRemoteId(persistentId: string): FmgrTaskRow | undefined {
    const raw = this.db
      .prepare('SELECT * FROM fmgr_tasks WHERE persistent_id = ? ORDER BY updated_at DESC, id DESC LIMIT 1')
      .get(persistentId);
    return raw === undefined ? undefined : toTask(raw);
  }

  /** Deletes a task with its items and snapshots (foreign keys cascade). */
  remove(taskId: number): void {
    this.db.prepare('DELETE FROM fmgr_tasks WHERE id = ?').run(taskId);
  }

  find(accountId: number, persistentId: string): FmgrTaskRow | undefined {
    const raw = this.db
      .prepare('SELECT * FROM fmgr_tasks WHERE account_id = ? AND persistent_id = ?')
      .get(accountId, persistentId);
    return raw === undefined ? undefined : toTask(raw);
  }

  /** Newest first; `tracking` filters, `limit` defaults to 200. */
  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number } = {}): FmgrTaskRow[] {
    return this.followed.list(opts).map(toTask);
  }

  items(taskId: number): FmgrItemRow[] {
    return this.db.prepare('SELECT * FROM fmgr_task_items WHERE task_id = ? ORDER BY idx').all(taskId).map(toItem);
  }

  snapshots(taskId: number): FmgrSnapshotRow[] {
    return this.db.prepare('SELECT * FROM fmgr_snapshots WHERE task_id = ? ORDER BY id').all(taskId).map(toSnapshot);
  }

  /**
   * Records one status body (a poll answer or a notification): the snapshot (a body equal to
   * the latest snapshot only bumps its count), the items, the task's code, and clears the
   * error. A poll counts toward `polls`; a notification does not.
   */
  recordStatus(taskId: number, status: FmgrTaskStatus, u: StatusUpdate): FmgrTaskRow {
    this.db.transaction(() => {
      this.keepSnapshotRow(taskId, status, u.source, u.nowMs);
      this.db.prepare('DELETE FROM fmgr_task_items WHERE task_id = ?').run(taskId);
      const ins = this.db.prepare(
        `INSERT INTO fmgr_task_items (task_id, idx, cmd, code, description, error, hash, fsize, key, url, decompresslist)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      status.items.forEach((it, i) => {
        ins.run(
          taskId,
          i,
          it.cmd,
          it.code,
          it.desc,
          emptyToNull(it.error),
          emptyToNull(it.hash),
          it.fsize ?? null,
          emptyToNull(it.key),
          emptyToNull(it.url),
          emptyToNull(it.decompresslist),
        );
      });
      this.db
        .prepare(
          `UPDATE fmgr_tasks SET code = ?, code_source = ?, description = ?, separate = ?, error_code = NULL, error_message = NULL,
             error_at = NULL, consecutive_errors = 0, not_found_since = NULL, polls = polls + ?, next_poll_at = ?, tracking = ?,
             finished_at = CASE WHEN ? = 'active' THEN NULL ELSE COALESCE(finished_at, ?) END, updated_at = ? WHERE id = ?`,
        )
        .run(
          status.code,
          u.source,
          status.desc,
          status.separate === undefined ? null : String(status.separate),
          u.source === 'poll' ? 1 : 0,
          u.nextPollAt,
          u.tracking,
          u.tracking,
          u.nowMs,
          u.nowMs,
          taskId,
        );
    })();
    return this.mustGet(taskId);
  }

  /**
   * Keeps a status body in the task's history only (the current code, items and tracking do
   * not change): for news that arrives after the task is done (see tasks/follower.ts).
   */
  keepSnapshot(taskId: number, status: FmgrTaskStatus, source: StatusSource, nowMs: number): FmgrTaskRow {
    this.db.transaction(() => this.keepSnapshotRow(taskId, status, source, nowMs))();
    return this.mustGet(taskId);
  }

  private keepSnapshotRow(taskId: number, status: FmgrTaskStatus, source: StatusSource, nowMs: number): void {
    const body = JSON.stringify(status);
    const last = this.db
      .prepare('SELECT id, source, body_json FROM fmgr_snapshots WHERE task_id = ? ORDER BY id DESC LIMIT 1')
      .get(taskId) as { id: number; source: string; body_json: string } | undefined;
    if (last && last.source === source && last.body_json === body) {
      this.db
        .prepare('UPDATE fmgr_snapshots SET seen_count = seen_count + 1, last_seen_at = ? WHERE id = ?')
        .run(nowMs, last.id);
    } else {
      this.db
        .prepare(
          'INSERT INTO fmgr_snapshots (task_id, source, code, body_json, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(taskId, source, status.code, body, nowMs, nowMs);
    }
  }

  /** Records a failed poll: the error stays visible on the task until a status arrives. */
  recordError(taskId: number, e: ErrorUpdate): FmgrTaskRow {
    this.followed.recordError(taskId, e);
    return this.mustGet(taskId);
  }

  setNextPoll(taskId: number, nextPollAt: number | null): void {
    this.followed.setNextPoll(taskId, nextPollAt);
  }

  setTracking(taskId: number, tracking: Tracking, nowMs: number): FmgrTaskRow {
    this.followed.setTracking(taskId, tracking, nowMs);
    return this.mustGet(taskId);
  }
}
