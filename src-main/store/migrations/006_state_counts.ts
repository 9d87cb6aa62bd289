import type { Migration } from '../db';

/**
 * Counts per state kept by triggers, for the views the UI gets up to 10 times a second: a
 * watched folder's counts (sync_files by root and state) and the queue's totals (transfers
 * by state). Counting them with GROUP BY read every row each time, tens of milliseconds at
 * 100,000 rows, holding the main loop. Triggers keep them right whatever writes the rows
 * (upserts fire the UPDATE triggers, a root's cascade delete the DELETE ones). A count can
 * drop to 0 and stay as a row; readers add missing states as 0. A missing row is added with
 * INSERT … WHERE NOT EXISTS, not INSERT OR IGNORE: inside a trigger the conflict policy of
 * the statement that fired it wins (an upsert's ABORT), so OR IGNORE would not ignore.
 *
 * sync_files_state also lets a root's first files in one state (its rejected list) be read
 * by index instead of by walking the whole root.
 */
export const migration006StateCounts: Migration = {
  version: 6,
  name: 'state-counts',
  up(db) {
    db.exec(`
      CREATE TABLE sync_file_counts (
        root_id INTEGER NOT NULL,
        state TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (root_id, state)
      ) WITHOUT ROWID;
      INSERT INTO sync_file_counts (root_id, state, n) SELECT root_id, state, COUNT(*) FROM sync_files GROUP BY root_id, state;
      CREATE TRIGGER sync_files_count_insert AFTER INSERT ON sync_files BEGIN
        INSERT INTO sync_file_counts (root_id, state, n) SELECT new.root_id, new.state, 0
          WHERE NOT EXISTS (SELECT 1 FROM sync_file_counts WHERE root_id = new.root_id AND state = new.state);
        UPDATE sync_file_counts SET n = n + 1 WHERE root_id = new.root_id AND state = new.state;
      END;
      CREATE TRIGGER sync_files_count_delete AFTER DELETE ON sync_files BEGIN
        UPDATE sync_file_counts SET n = n - 1 WHERE root_id = old.root_id AND state = old.state;
      END;
      CREATE TRIGGER sync_files_count_update AFTER UPDATE OF root_id, state ON sync_files
        WHEN old.root_id IS NOT new.root_id OR old.state IS NOT new.state BEGIN
        UPDATE sync_file_counts SET n = n - 1 WHERE root_id = old.root_id AND state = old.state;
        INSERT INTO sync_file_counts (root_id, state, n) SELECT new.root_id, new.state, 0
          WHERE NOT EXISTS (SELECT 1 FROM sync_file_counts WHERE root_id = new.root_id AND state = new.state);
        UPDATE sync_file_counts SET n = n + 1 WHERE root_id = new.root_id AND state = new.state;
      END;
      CREATE INDEX sync_files_state ON sync_files(root_id, state);

      CREATE TABLE transfer_counts (
        state TEXT PRIMARY KEY,
        n INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO transfer_counts (state, n) SELECT state, COUNT(*) FROM transfers GROUP BY state;
      CREATE TRIGGER transfers_count_insert AFTER INSERT ON transfers BEGIN
        INSERT INTO transfer_counts (state, n) SELECT new.state, 0
          WHERE NOT EXISTS (SELECT 1 FROM transfer_counts WHERE state = new.state);
        UPDATE transfer_counts SET n = n + 1 WHERE state = new.state;
      END;
      CREATE TRIGGER transfers_count_delete AFTER DELETE ON transfers BEGIN
        UPDATE transfer_counts SET n = n - 1 WHERE state = old.state;
      END;
      CREATE TRIGGER transfers_count_update AFTER UPDATE OF state ON transfers WHEN old.state IS NOT new.state BEGIN
        UPDATE transfer_counts SET n = n - 1 WHERE state = old.state;
        INSERT INTO transfer_counts (state, n) SELECT new.state, 0
          WHERE NOT EXISTS (SELECT 1 FROM transfer_counts WHERE state = new.state);
        UPDATE transfer_counts SET n = n + 1 WHERE state = new.state;
      END;
    `);
  },
};
