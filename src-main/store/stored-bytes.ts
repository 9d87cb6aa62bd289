import type { Statement } from 'better-sqlite3';
import type { StoredCopySource } from '../engine/ports';
import type { Db } from './db';

/**
 * "A done, verified object with these bytes on this account": where the engine can have the
 * service copy an object from instead of uploading the bytes again (engine/same-bytes.ts).
 * Both queries use the partial index `transfers_stored_bytes` (migration 8): the WHERE
 * clauses repeat its condition so SQLite can use it.
 */
export class StoredBytesQuery {
  private readonly ofSize: Statement;
  private readonly withEtag: Statement;

  constructor(db: Db) {
    const verified = `state = 'done' AND remote_hash IS NOT NULL AND remote_hash = etag`;
    this.ofSize = db.prepare(`SELECT 1 FROM transfers WHERE account_id = ? AND size = ? AND ${verified} LIMIT 1`);
    this.withEtag = db.prepare(
      `SELECT id, bucket, key FROM transfers
       WHERE account_id = ? AND size = ? AND etag = ? AND ${verified}
       ORDER BY id DESC LIMIT ?`,
    );
  }

  /** Whether any done, verified object of this account has this size (cheap: no etag needed yet). */
  anyOfSize(accountId: number, size: number): boolean {
    return this.ofSize.get(accountId, size) !== undefined;
  }

  /** The newest done, verified objects of this account with this etag (and size), at most `limit`, distinct by place. */
  withBytes(accountId: number, size: number, etag: string, limit: number): StoredCopySource[] {
    const rows = this.withEtag.all(accountId, size, etag, limit * 4) as Array<{
      id: number;
      bucket: string;
      key: string;
    }>;
    const seen = new Set<string>();
    const out: StoredCopySource[] = [];
    for (const r of rows) {
      const place = `${r.bucket}\0${r.key}`;
      if (seen.has(place)) continue;
      seen.add(place);
      out.push({ transferId: r.id, bucket: r.bucket, key: r.key });
      if (out.length === limit) break;
    }
    return out;
  }
}
