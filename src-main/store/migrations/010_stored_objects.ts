import type { Migration } from '../db';

/**
 * "This account stored these bytes under this key, verified" as its own table (issue 19),
 * so clearing finished transfers no longer forgets where a file's bytes can be copied from
 * on the service (engine/same-bytes.ts; before, the lookup read the transfer rows).
 * - `stored_objects`: one row per place (account, bucket, key), written with a transfer's end
 *   (store/transfer-repo.ts: done and verified → the place and its bytes; done otherwise →
 *   the place is dropped), dropped when the engine finds the object gone or holding other
 *   bytes. `transfer_id` names the transfer that stored it (no foreign key: the row outlives
 *   the transfer). The newest place is the highest rowid (a place stored again is replaced).
 * - `stored_objects_bytes`: lookups by account, size and etag, newest first.
 * - Filled from the transfers: at each place the newest done transfer decides, kept when it
 *   was verified. `transfers_stored_bytes` (migration 8) has no reader any more and goes.
 */
export const migration010StoredObjects: Migration = {
  version: 10,
  name: 'stored-objects',
  up(db) {
    db.exec(`
      CREATE TABLE stored_objects (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        bucket TEXT NOT NULL,
        key TEXT NOT NULL,
        size INTEGER NOT NULL,
        etag TEXT NOT NULL,
        transfer_id INTEGER,
        stored_at INTEGER NOT NULL,
        UNIQUE (account_id, bucket, key)
      );
      CREATE INDEX stored_objects_bytes ON stored_objects(account_id, size, etag);
      INSERT INTO stored_objects (account_id, bucket, key, size, etag, transfer_id, stored_at)
        SELECT account_id, bucket, key, size, etag, id, at FROM (
          SELECT id, account_id, bucket, key, size, etag, remote_hash, COALESCE(finished_at, updated_at) AS at,
                 row_number() OVER (PARTITION BY account_id, bucket, key ORDER BY id DESC) AS newest
          FROM transfers WHERE state = 'done'
        )
        WHERE newest = 1 AND etag IS NOT NULL AND remote_hash = etag
        ORDER BY id;
      DROP INDEX transfers_stored_bytes;
    `);
  },
};
