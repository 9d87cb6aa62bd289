import type { Statement } from 'better-sqlite3';
import { emptyTotals } from '../common/totals';
import type { TransferRecord } from '../engine/ports';
import type { PauseReason, TransferQuery, TransferSortField, TransferTotals } from '../shared/contract';
import { TRANSFER_STATES, type TransferSource, type TransferState } from '../shared/models';
import type { Db } from './db';
import { SqliteTransferStore } from './transfer-repo';

/**
 * The transfer list as a screen reads it (the app service's transfers.list/get) and the
 * pause reasons (migration 005). Reads only, except the pause-reason and row-removal writes.
 * Filters use the indexes of migrations 001 and 005; a 200-row page of 100k rows reads the
 * page and one GROUP BY over the state index.
 */

export const PAUSE_REASONS: readonly PauseReason[] = ['user', 'schedule', 'root', 'error'];

/** A row of the list: the stored transfer, its watch root, bytes the service has acknowledged, why it is paused. */
export interface TransferListRow {
  record: TransferRecord;
  rootId: number | null;
  committedBytes: number;
  pausedBy: PauseReason | null;
}

export interface BlockRow {
  index: number;
  size: number;
  nextOffset: number;
  restarts: number;
}

export const ALL_TRANSFER_STATES = TRANSFER_STATES;

const COMMITTED = `CASE WHEN t.state = 'done' THEN t.size
  ELSE COALESCE((SELECT sum(b.next_offset) FROM blocks b WHERE b.transfer_id = t.id), 0) END`;
const ROOT_OF = '(SELECT sf.root_id FROM sync_files sf WHERE sf.transfer_id = t.id LIMIT 1)';

const SORT_SQL: Record<TransferSortField, string> = {
  createdAt: 't.id',
  updatedAt: 't.updated_at',
  name: 't.key',
  size: 't.size',
  state: 't.state',
  progress: `(${COMMITTED}) * 1.0 / max(t.size, 1)`,
};

function likeText(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface ExtraRow {
  id: number;
  root_id: number | null;
  committed: number;
  paused_by: string | null;
}

export class TransferQueryRepo {
  private readonly store: SqliteTransferStore;

  private readonly extras: Statement;

  constructor(private readonly db: Db) {
    this.store = new SqliteTransferStore(db);
    this.extras = db.prepare(
      `SELECT t.id AS id, ${ROOT_OF} AS root_id, ${COMMITTED} AS committed, t.paused_by AS paused_by
       FROM transfers t WHERE t.id = ?`,
    );
  }

  /** WHERE clause and parameters of a query's filters; `withStates` false leaves the state filter out (totals). */
  private where(q: TransferQuery, withStates: boolean): { sql: string; params: unknown[] } {
    const terms: string[] = [];
    const params: unknown[] = [];
    if (withStates && q.states && q.states.length > 0) {
      terms.push(`t.state IN (${q.states.map(() => '?').join(',')})`);
      params.push(...q.states);
    }
    if (q.accountId !== undefined) {
      terms.push('t.account_id = ?');
      params.push(q.accountId);
    }
    if (q.source !== undefined) {
      terms.push('t.source = ?');
      params.push(q.source);
    }
    if (q.rootId !== undefined) {
      terms.push('t.id IN (SELECT transfer_id FROM sync_files WHERE root_id = ? AND transfer_id IS NOT NULL)');
      params.push(q.rootId);
    }
    if (q.text !== undefined && q.text !== '') {
      terms.push(`(t.key LIKE ? ESCAPE '\\' OR t.local_path LIKE ? ESCAPE '\\')`);
      params.push(likeText(q.text), likeText(q.text));
    }
    return { sql: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params };
  }

  /**
   * One page of the list. `total` counts rows matching every filter; `totals` counts per
   * state the rows matching the other filters (so a screen's state tabs keep their numbers).
   */
  list(q: TransferQuery): { rows: TransferListRow[]; total: number; totals: TransferTotals } {
    const w = this.where(q, true);
    const sort = q.sort ?? { field: 'createdAt', direction: 'desc' };
    const dir = sort.direction === 'asc' ? 'ASC' : 'DESC';
    // Ids of the page first (an index walk or one sort), the per-row extras for those only.
    const ids = this.db
      .prepare(
        `SELECT t.id FROM transfers t ${w.sql} ORDER BY ${SORT_SQL[sort.field]} ${dir}, t.id ${dir} LIMIT ? OFFSET ?`,
      )
      .pluck()
      .all(...w.params, q.limit ?? 200, q.offset ?? 0) as number[];
    const rows: TransferListRow[] = [];
    for (const id of ids) {
      const row = this.get(id);
      if (row) rows.push(row);
    }
    const totals = this.totals(q);
    const states = q.states && q.states.length > 0 ? q.states : ALL_TRANSFER_STATES;
    const total = states.reduce((n, s) => n + totals[s], 0);
    return { rows, total, totals };
  }

  /** Counts per state of the rows matching the query's filters other than its states. */
  totals(q: Omit<TransferQuery, 'states'> = {}): TransferTotals {
    const w = this.where(q, false);
    const totals = emptyTotals();
    // Unfiltered: the counts the triggers keep (migration 006), not a walk of every row.
    const sql = w.sql
      ? `SELECT t.state AS state, count(*) AS n FROM transfers t ${w.sql} GROUP BY t.state`
      : 'SELECT state, n FROM transfer_counts';
    const counts = this.db.prepare(sql).all(...w.params) as Array<{ state: TransferState; n: number }>;
    for (const c of counts) totals[c.state] = c.n;
    return totals;
  }

  get(id: number): TransferListRow | undefined {
    const record = this.store.getTransfer(id);
    if (!record) return undefined;
    return listRow(record, this.extras.get(id) as ExtraRow);
  }

  blocks(id: number): BlockRow[] {
    return (
      this.db
        .prepare('SELECT idx, size, next_offset, restarts FROM blocks WHERE transfer_id = ? ORDER BY idx')
        .all(id) as Array<{ idx: number; size: number; next_offset: number; restarts: number }>
    ).map((b) => ({ index: b.idx, size: b.size, nextOffset: b.next_offset, restarts: b.restarts }));
  }

  /** The newest warning or error the event log holds about a transfer. */
  lastLogged(id: number): { message: string; at: number; requestId: string | null } | undefined {
    return this.db
      .prepare(
        `SELECT message, at, json_extract(data_json, '$.requestId') AS requestId FROM event_log
         WHERE transfer_id = ? AND level IN ('warn','error') ORDER BY id DESC LIMIT 1`,
      )
      .get(id) as { message: string; at: number; requestId: string | null } | undefined;
  }

  /** Records why transfers are paused (null clears it). */
  setPausedBy(ids: readonly number[], reason: PauseReason | null): void {
    const stmt = this.db.prepare('UPDATE transfers SET paused_by = ? WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) stmt.run(reason, id);
    })();
  }

  /** The recorded pause reason of a transfer, whatever its state (null: none recorded). */
  pausedByOf(id: number): PauseReason | null {
    const v = this.db.prepare('SELECT paused_by FROM transfers WHERE id = ?').pluck().get(id) as string | null;
    return isPauseReason(v) ? v : null;
  }

  /** Ids of the paused transfers paused for `reason`. */
  pausedFor(reason: PauseReason): number[] {
    return this.db
      .prepare(`SELECT id FROM transfers WHERE state = 'paused' AND paused_by = ? ORDER BY id`)
      .pluck()
      .all(reason) as number[];
  }

  /** Ids of transfers in `states`: all of them when `ids` is undefined, else those of `ids`. */
  idsIn(states: readonly TransferState[], ids?: readonly number[]): number[] {
    if (states.length === 0) return [];
    const inStates = `state IN (${states.map(() => '?').join(',')})`;
    if (ids === undefined)
      return this.db
        .prepare(`SELECT id FROM transfers WHERE ${inStates} ORDER BY id`)
        .pluck()
        .all(...states) as number[];
    const stmt = this.db.prepare(`SELECT id FROM transfers WHERE id = ? AND ${inStates}`).pluck();
    return ids.filter((id) => stmt.get(id, ...states) !== undefined);
  }

  /**
   * Ids of one account's transfers in `states` whose source is not `exceptSource`; only those
   * paused for `pausedBy` when given (credential holds).
   */
  accountTransfers(q: {
    accountId: number;
    states: readonly TransferState[];
    exceptSource?: TransferSource;
    pausedBy?: PauseReason;
  }): number[] {
    if (q.states.length === 0) return [];
    const terms = ['account_id = ?', `state IN (${q.states.map(() => '?').join(',')})`];
    const params: unknown[] = [q.accountId, ...q.states];
    if (q.exceptSource !== undefined) {
      terms.push('source <> ?');
      params.push(q.exceptSource);
    }
    if (q.pausedBy !== undefined) {
      terms.push('paused_by = ?');
      params.push(q.pausedBy);
    }
    return this.db
      .prepare(`SELECT id FROM transfers WHERE ${terms.join(' AND ')} ORDER BY id`)
      .pluck()
      .all(...params) as number[];
  }

  /** Deletes finished transfer rows (their blocks go with them); returns the ids removed. */
  removeFinished(ids: readonly number[]): number[] {
    const stmt = this.db.prepare(
      `DELETE FROM transfers WHERE id = ? AND state IN ('done','failed','canceled','skipped')`,
    );
    return this.db.transaction(() => ids.filter((id) => stmt.run(id).changes > 0))();
  }
}

function isPauseReason(v: unknown): v is PauseReason {
  return typeof v === 'string' && (PAUSE_REASONS as readonly string[]).includes(v);
}

function listRow(record: TransferRecord, r: ExtraRow): TransferListRow {
  // Paused with no recorded reason (a row older than migration 005): the user's.
  const pausedBy = record.state !== 'paused' ? null : isPauseReason(r.paused_by) ? r.paused_by : 'user';
  return { record, rootId: r.root_id, committedBytes: r.committed, pausedBy };
}
