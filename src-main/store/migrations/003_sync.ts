import type { Migration } from '../db';

/**
 * Watched folders (design.md "Data model"): the roots, and a file index per root so a
 * restart uploads nothing that did not change. Times are Unix milliseconds, sizes bytes.
 *
 * watch_roots.path is the resolved (real) path; options_json holds sync/options.ts
 * WatchRootOptions. paused is the user's pause; unavailable_reason is set while the folder
 * is missing or unreadable (cleared when it returns).
 *
 * sync_files.state:
 *   queued    handed to the transfer queue (transfer_id), not finished yet;
 *   uploaded  the remote object holds this size/mtime's content (etag, remote_key);
 *   failed    the transfer failed (error_*); tried again on the next scan;
 *   skipped   the conflict policy skipped it or the user canceled; tried again when it changes;
 *   rejected  its key cannot be used (error_code is a keymap KeyRejectCode);
 *   missing   gone from the folder, waiting (missing_since) for a rename to claim it
 *             before the local-delete policy applies.
 * size and mtime_ms are those of the content the state refers to.
 */
export const migration003Sync: Migration = {
  version: 3,
  name: 'sync',
  up(db) {
    db.exec(`
      CREATE TABLE watch_roots (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        account_id INTEGER NOT NULL,
        bucket TEXT NOT NULL,
        prefix TEXT NOT NULL DEFAULT '',
        options_json TEXT NOT NULL DEFAULT '{}',
        paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
        unavailable_reason TEXT,
        last_scan_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE sync_files (
        root_id INTEGER NOT NULL REFERENCES watch_roots(id) ON DELETE CASCADE,
        rel_path TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        etag TEXT,
        remote_key TEXT,
        state TEXT NOT NULL CHECK (state IN ('queued','uploaded','failed','skipped','rejected','missing')),
        transfer_id INTEGER,
        error_code TEXT,
        error_message TEXT,
        missing_since INTEGER,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (root_id, rel_path)
      ) WITHOUT ROWID;
      CREATE INDEX sync_files_transfer ON sync_files(transfer_id) WHERE transfer_id IS NOT NULL;
      CREATE INDEX sync_files_missing ON sync_files(root_id, size) WHERE state = 'missing';
    `);
  },
};
