import type { Migration } from '../db';

/**
 * Bytes not sent twice (issue 19): where an object's bytes can be copied from on the service.
 * - `transfers_stored_bytes`: the done, verified transfers of an account by size and etag, so
 *   "is there an object of this size" (whether reading a file for its etag is worth it) and
 *   "which object holds these bytes" are index lookups (store/stored-bytes.ts).
 * - `copied_from_bucket`, `copied_from_key`: the object a transfer's object was copied from
 *   on the service (Fmgr copy) instead of being uploaded; null when its bytes were sent.
 */
export const migration008SameBytes: Migration = {
  version: 8,
  name: 'same-bytes',
  up(db) {
    db.exec(`
      ALTER TABLE transfers ADD COLUMN copied_from_bucket TEXT;
      ALTER TABLE transfers ADD COLUMN copied_from_key TEXT;
      CREATE INDEX transfers_stored_bytes ON transfers(account_id, size, etag)
        WHERE state = 'done' AND remote_hash IS NOT NULL AND remote_hash = etag;
    `);
  },
};
