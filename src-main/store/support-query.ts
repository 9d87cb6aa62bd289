import type { Db } from './db';

export interface SupportTransferRow {
  id: number;
  accountId: number;
  bucket: string;
  key: string;
  localPath: string;
  size: number;
  state: string;
  etag: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  warning: string | null;
  attempts: number;
  finishedAt: number | null;
}

export interface SupportEventRow {
  at: number;
  level: string;
  kind: string;
  transferId: number | null;
  message: string;
}

/** What a support bundle reads: finished transfers by state and the newest event log rows, oldest first. */
export class SupportQuery {
  constructor(private readonly db: Db) {}

  /** Transfers in one state, newest first, at most `limit`. */
  transfers(state: 'done' | 'failed' | 'skipped', limit = 10_000): SupportTransferRow[] {
    return this.db
      .prepare(
        `SELECT id, account_id AS accountId, bucket, key, local_path AS localPath, size, state, etag,
                last_error_code AS errorCode, last_error_message AS errorMessage, warning, attempts,
                finished_at AS finishedAt
         FROM transfers WHERE state = ? ORDER BY id DESC LIMIT ?`,
      )
      .all(state, limit) as SupportTransferRow[];
  }

  /** The newest `limit` rows of the event log, oldest first. */
  events(limit = 20_000): SupportEventRow[] {
    const rows = this.db
      .prepare(`SELECT at, level, kind, transfer_id AS transferId, message FROM event_log ORDER BY id DESC LIMIT ?`)
      .all(limit) as SupportEventRow[];
    return rows.reverse();
  }
}
