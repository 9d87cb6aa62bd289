import type { Migration } from '../db';

/**
 * When an account's secret key was last set, so what leaves the main process about it can
 * say "stored · changed <date>" instead of anything of the secret or where it is kept.
 * Accounts that hold a secret already get their row's last change as that date.
 */
export const migration007SecretChanged: Migration = {
  version: 7,
  name: 'secret-changed',
  up(db) {
    db.exec(`
      ALTER TABLE accounts ADD COLUMN secret_changed_at INTEGER;
      UPDATE accounts SET secret_changed_at = updated_at WHERE secret_ref IS NOT NULL;
    `);
  },
};
