import type { Statement } from 'better-sqlite3';
import type { StoredCopySource, TransferRecord } from '../engine/ports';
import type { Db } from './db';

/**
 * "This account stored these bytes under this key, verified" (table `stored_objects`,
 * migration 10): where the engine can have the service copy an object from instead of
 * uploading the bytes again (engine/same-bytes.ts). Its own table, so clearing finished
 * transfers keeps it. Written with each transfer's end (`recordEnd`, in the same transaction
 * as the transfer's final state), dropped when the engine finds the object gone or holding
 * other bytes (`forget`). Lookups use the index `stored_objects_bytes`.
 */
export class StoredBytesQuery {
  private readonly ofSize: Statement;
  private readonly withEtag: Statement;
  private readonly put: Statement;
  private readonly drop: Statement;

  constructor(db: Db) {
    this.ofSize = db.prepare(`SELECT 1 FROM stored_objects WHERE account_id = ? AND size = ? LIMIT 1`);
    this.withEtag = db.prepare(
      `SELECT transfer_id, bucket, key FROM stored_objects
       WHERE account_id = ? AND size = ? AND etag = ?
       ORDER BY id DESC LIMIT ?`,
    );
    // REPLACE gives a place stored again a new id: it becomes the newest.
    this.put = db.prepare(
      `INSERT OR REPLACE INTO stored_objects (account_id, bucket, key, size, etag, transfer_id, stored_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.drop = db.prepare(`DELETE FROM stored_objects WHERE account_id = ? AND bucket = ? AND key = ?`);
  }

  /** Whether any verified object of this account has this size (cheap: no etag needed yet). */
  anyOfSize(accountId: number, size: number): boolean {
    return this.ofSize.get(accountId, size) !== undefined;
  }

  /** The newest verified objects of this account with this etag (and size), at most `limit` (one row per place). */
  withBytes(accountId: number, size: number, etag: string, limit: number): StoredCopySource[] {
    const rows = this.withEtag.all(accountId, size, etag, limit) as Array<{
      transfer_id: number | null;
      bucket: string;
      key: string;
    }>;
    return rows.map((r) => ({ transferId: r.transfer_id, bucket: r.bucket, key: r.key }));
  }

  /**
   * After a transfer got its final state (its record as written): done and verified (the service's hash is the
   * etag) records its place with these bytes; done otherwise (a 579, a callback's reply)
   * drops the place, whose bytes are not known now. Other states leave the object as it was.
   */
  recordEnd(t: TransferRecord, nowMs: number): void {
    if (t.state !== 'done') return;
    if (t.etag !== null && t.remoteHash === t.etag)
      this.put.run(t.accountId, t.bucket, t.key, t.size, t.etag, t.id, nowMs);
    else this.drop.run(t.accountId, t.bucket, t.key);
  }

  /** The object at this place is gone or holds other bytes now: not a place to copy from. */
  forget(accountId: number, bucket: string, key: string): void {
    this.drop.run(accountId, bucket, key);
  }
}
