import type { Migration } from '../db';

/**
 * Why a paused transfer is paused, and the indexes of the transfer list (the app service's
 * `transfers.list`: filters by account, source and state, sorts by update time or key).
 *
 * transfers.paused_by, read only while state = 'paused':
 *   user      the user paused it; only the user resumes it (never a restart, never the schedule);
 *   schedule  an upload-schedule pause window held it; resumed when the schedule runs again,
 *             also after a restart that happens outside the window;
 *   root      its watched folder was paused; resumed with the folder;
 *   error     the app held it after an error it cannot retry on its own.
 * Rows paused before this migration have no recorded reason: they count as the user's.
 *
 * blocks.restarts counts the times a block started over (its ctx was rejected or expired),
 * for the transfer's detail view.
 */
export const migration005PauseReason: Migration = {
  version: 5,
  name: 'pause-reason',
  up(db) {
    db.exec(`
      ALTER TABLE transfers ADD COLUMN paused_by TEXT CHECK (paused_by IN ('user','schedule','root','error'));
      UPDATE transfers SET paused_by = 'user' WHERE state = 'paused';
      CREATE INDEX transfers_paused_by ON transfers(paused_by) WHERE state = 'paused';
      CREATE INDEX transfers_account_state ON transfers(account_id, state);
      CREATE INDEX transfers_source_state ON transfers(source, state);
      CREATE INDEX transfers_updated ON transfers(updated_at);
      CREATE INDEX transfers_key ON transfers(key);
      ALTER TABLE blocks ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
