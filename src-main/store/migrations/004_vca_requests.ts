import type { Migration } from '../db';

/**
 * VCA jobs Blocklift still has to create (service/vca-requests.ts): an uploaded video of a
 * root with "VCA for videos" is written here before the service is asked, so a network
 * error, a 5xx or the app closing in between loses nothing. Times are Unix milliseconds.
 *
 * state: pending  asked again at next_attempt_at (also after a restart);
 *        failed   the service refused for a reason asking again cannot fix (last_error_*),
 *                 kept so the problem stays visible.
 * A request whose job was created is deleted (the job is then a vca_jobs row).
 * download_domain / source_url are those of the last attempt (the account's current download
 * domain wins at each attempt: the embedded emulator's port changes between runs).
 */
export const migration004VcaRequests: Migration = {
  version: 4,
  name: 'vca-requests',
  up(db) {
    db.exec(`
      CREATE TABLE vca_requests (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL,
        bucket TEXT NOT NULL,
        key TEXT NOT NULL,
        download_domain TEXT,
        source_url TEXT,
        transfer_id INTEGER,
        root_id INTEGER,
        origin TEXT NOT NULL CHECK (origin IN ('watch','transfer')),
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error_code TEXT,
        last_error_message TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX vca_requests_pending ON vca_requests(next_attempt_at) WHERE state = 'pending';
    `);
  },
};
