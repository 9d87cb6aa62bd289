import type { Db } from './db';

/** A VCA job Blocklift still has to create (migration 004). */
export interface VcaRequestRecord {
  id: number;
  accountId: number;
  bucket: string;
  key: string;
  downloadDomain: string | null;
  sourceUrl: string | null;
  transferId: number | null;
  rootId: number | null;
  origin: 'watch' | 'transfer';
  state: 'pending' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  createdAt: number;
  updatedAt: number;
}

export type VcaRequestInput = Pick<VcaRequestRecord, 'accountId' | 'bucket' | 'key' | 'downloadDomain' | 'origin'> & {
  transferId?: number | null;
  rootId?: number | null;
};

interface Row {
  id: number;
  account_id: number;
  bucket: string;
  key: string;
  download_domain: string | null;
  source_url: string | null;
  transfer_id: number | null;
  root_id: number | null;
  origin: 'watch' | 'transfer';
  state: 'pending' | 'failed';
  attempts: number;
  next_attempt_at: number;
  last_error_code: string | null;
  last_error_message: string | null;
  created_at: number;
  updated_at: number;
}

function toRecord(r: Row): VcaRequestRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    bucket: r.bucket,
    key: r.key,
    downloadDomain: r.download_domain,
    sourceUrl: r.source_url,
    transferId: r.transfer_id,
    rootId: r.root_id,
    origin: r.origin,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastErrorCode: r.last_error_code,
    lastErrorMessage: r.last_error_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The requested VCA creations (table vca_requests). Times are Unix milliseconds. */
export class VcaRequestsRepo {
  constructor(private readonly db: Db) {}

  /** Stores a new pending request, due at `nowMs`; returns it. */
  add(r: VcaRequestInput, nowMs: number): VcaRequestRecord {
    const row = this.db
      .prepare(
        `INSERT INTO vca_requests (account_id, bucket, key, download_domain, transfer_id, root_id, origin, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        r.accountId,
        r.bucket,
        r.key,
        r.downloadDomain,
        r.transferId ?? null,
        r.rootId ?? null,
        r.origin,
        nowMs,
        nowMs,
        nowMs,
      ) as Row;
    return toRecord(row);
  }

  get(id: number): VcaRequestRecord | undefined {
    const r = this.db.prepare('SELECT * FROM vca_requests WHERE id = ?').get(id) as Row | undefined;
    return r && toRecord(r);
  }

  /** Every request, oldest first; `state` filters. */
  list(state?: VcaRequestRecord['state']): VcaRequestRecord[] {
    const rows = (
      state === undefined
        ? this.db.prepare('SELECT * FROM vca_requests ORDER BY id').all()
        : this.db.prepare('SELECT * FROM vca_requests WHERE state = ? ORDER BY id').all(state)
    ) as Row[];
    return rows.map(toRecord);
  }

  /** Records the domain and source URL an attempt uses. */
  setSource(id: number, downloadDomain: string, sourceUrl: string, nowMs: number): void {
    this.db
      .prepare('UPDATE vca_requests SET download_domain = ?, source_url = ?, updated_at = ? WHERE id = ?')
      .run(downloadDomain, sourceUrl, nowMs, id);
  }

  /** A failed attempt that may succeed later: counted, error kept, due again at `nextAttemptAt`. */
  retryLater(
    id: number,
    err: { code: string; message: string },
    nextAttemptAt: number,
    nowMs: number,
  ): VcaRequestRecord | undefined {
    const r = this.db
      .prepare(
        `UPDATE vca_requests SET attempts = attempts + 1, next_attempt_at = ?, last_error_code = ?, last_error_message = ?, updated_at = ?
         WHERE id = ? AND state = 'pending' RETURNING *`,
      )
      .get(nextAttemptAt, err.code, err.message, nowMs, id) as Row | undefined;
    return r && toRecord(r);
  }

  /** A failed attempt that asking again cannot fix: no more attempts, the error stays visible. */
  fail(id: number, err: { code: string; message: string }, nowMs: number): VcaRequestRecord | undefined {
    const r = this.db
      .prepare(
        `UPDATE vca_requests SET state = 'failed', attempts = attempts + 1, last_error_code = ?, last_error_message = ?, updated_at = ?
         WHERE id = ? RETURNING *`,
      )
      .get(err.code, err.message, nowMs, id) as Row | undefined;
    return r && toRecord(r);
  }

  /** The job was created: the request is done. */
  remove(id: number): void {
    this.db.prepare('DELETE FROM vca_requests WHERE id = ?').run(id);
  }
}
