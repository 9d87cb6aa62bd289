import type { Migration } from '../db';

/**
 * An Fmgr task the engine submitted for a transfer (issue 19: the copy on the service of a
 * file whose bytes were stored already, or the removal of a copy that was not the file), so
 * the Tasks screen shows it like the tasks a person submits, labelled as that transfer's:
 * `for_transfer_id` (no foreign key: the task is kept after the transfer is cleared) and
 * `for_transfer_key`, the key the operation wrote or removed. Both null for every other task.
 */
export const migration009TaskForTransfer: Migration = {
  version: 9,
  name: 'task-for-transfer',
  up(db) {
    db.exec(`
      ALTER TABLE fmgr_tasks ADD COLUMN for_transfer_id INTEGER;
      ALTER TABLE fmgr_tasks ADD COLUMN for_transfer_key TEXT;
    `);
  },
};
