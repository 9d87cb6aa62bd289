import type { Db } from '../../../src-main/store/db';

/**
 * Seed rows for the migration test, one entry per migration version. Each seeder runs on a
 * database at exactly its own version (after migration `version` and before the next one)
 * and writes raw SQL written against that version's schema only — never today's
 * repositories — so the rows are shaped like data a user of that version really has.
 *
 * Adding migration N: add `N: (db) => { ... }` below inserting at least one row into every
 * table migration N creates (the test fails on any empty table), with non-default values in
 * the columns it adds. If migration N fills a new column of old rows with something other
 * than the column's DEFAULT, describe it in BACKFILLS. Ids are given explicitly so rows can
 * be found again after the migration.
 */
export type Seeder = (db: Db) => void;

const T0_MS = 1_700_000_000_000;

export const SEEDERS: Record<number, Seeder> = {
  1: (db) => {
    db.exec(`
      INSERT INTO accounts (id, name, upload_url, mgr_url, download_domain, access_key, secret_ref, token_url, created_at, updated_at)
      VALUES (1, 'Local', 'http://127.0.0.1:1', 'http://127.0.0.1:2', 'cdn.example.com', 'AK1', 'env:BLOCKLIFT_SK', NULL, ${T0_MS}, ${T0_MS + 1}),
             (2, 'Équipe remote', 'https://up.example.com', NULL, NULL, NULL, NULL, 'https://tokens.example.com/t', ${T0_MS + 2}, ${T0_MS + 3});

      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, size, mtime_ms, state, batch, block_size,
                             etag, remote_hash, attempts, bytes_sent, last_error_code, last_error_message, warning, source,
                             options_json, return_body_json, priority, created_at, updated_at, finished_at)
      VALUES (1, 1, 'bucket-a', 'dir/file (1).bin', 'dir/file.bin', '/home/u/dir/file.bin', 6442450944, 1699999999123,
              'done', 'batch-1', 8388608, 'lhEtag', 'lhEtag', 3, 6442450944, NULL, NULL, 'done-with-warning 579',
              'cli', '{"conflict":"rename","mimeType":"video/mp4"}', '{"key":"dir/file (1).bin"}', 5,
              ${T0_MS + 10}, ${T0_MS + 11}, ${T0_MS + 12}),
             (2, 2, 'bucket-b', 'ключ.txt', 'ключ.txt', '/tmp/ключ.txt', 5242880, 1699999999000,
              'uploading', 'batch-2', 4194304, NULL, NULL, 1, 1048576, 'network', 'connection reset', NULL,
              'watch', '{}', NULL, -1, ${T0_MS + 20}, ${T0_MS + 21}, NULL);
      -- paused before pause reasons were recorded (migration 5 counts it as the user's)
      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, state, block_size, source, created_at, updated_at)
      VALUES (4, 2, 'bucket-b', 'held.bin', 'held.bin', '/tmp/held.bin', 'paused', 4194304, 'manual', ${T0_MS + 25}, ${T0_MS + 26});
      -- a row relying on every default of version 1
      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, state, block_size, source, created_at, updated_at)
      VALUES (3, 1, 'bucket-a', 'k3', 'k3', '/tmp/k3', 'queued', 4194304, 'manual', ${T0_MS + 30}, ${T0_MS + 30});

      INSERT INTO blocks (transfer_id, idx, size, next_offset, last_ctx, ctx_time_ms, unit_sha1s)
      VALUES (2, 0, 4194304, 4194304, 'ctx-0', ${T0_MS + 40}, x'00112233445566778899aabbccddeeff00112233'),
             (2, 1, 1048576, 262144, 'ctx-1', ${T0_MS + 41}, x'');
      INSERT INTO blocks (transfer_id, idx, size) VALUES (3, 0, 1024);

      INSERT INTO settings (key, value) VALUES ('bandwidthLimitBytesPerS', '1048576'), ('theme', '"dark"');

      INSERT INTO event_log (id, at, level, kind, transfer_id, message, data_json)
      VALUES (1, ${T0_MS + 50}, 'info', 'transfer.done', 1, 'uploaded dir/file (1).bin', '{"bytes":6442450944}'),
             (2, ${T0_MS + 51}, 'error', 'transfer.failed', NULL, 'connection reset', NULL);
    `);
  },

  2: (db) => {
    db.exec(`
      INSERT INTO fmgr_tasks (id, account_id, mgr_url, persistent_id, origin, op, fops, notify_url, tracking, code, code_source,
                              description, separate, error_code, error_message, error_at, consecutive_errors, not_found_since,
                              polls, next_poll_at, created_at, updated_at, finished_at)
      VALUES (1, 1, 'http://127.0.0.1:2', 'z0.task-1', 'submitted', 'fetch', 'fetch/aHR0cA==', 'http://127.0.0.1:9/n', 'done', 0, 'poll',
              'success', '1', NULL, NULL, NULL, 0, NULL, 7, NULL, ${T0_MS + 100}, ${T0_MS + 101}, ${T0_MS + 102}),
             (2, 0, NULL, 'z0.task-2', 'typed', NULL, NULL, NULL, 'lost', NULL, NULL,
              NULL, NULL, '612', 'no such task', ${T0_MS + 103}, 4, ${T0_MS + 104}, 12, ${T0_MS + 105}, ${T0_MS + 106}, ${T0_MS + 107}, NULL);
      -- every default of version 2
      INSERT INTO fmgr_tasks (id, persistent_id, origin, created_at, updated_at) VALUES (3, 'z0.task-3', 'upload', ${T0_MS + 108}, ${T0_MS + 108});

      INSERT INTO fmgr_task_items (task_id, idx, cmd, code, description, error, hash, fsize, key, url, decompresslist)
      VALUES (1, 0, 'fetch/aHR0cA==', 0, 'success', NULL, 'FhashA', 5000000000, 'out/a.mp4', 'http://cdn/a.mp4', NULL),
             (1, 1, 'unzip', 3, 'failed', 'bad archive', NULL, NULL, NULL, NULL, '["x.txt"]');

      INSERT INTO fmgr_snapshots (id, task_id, source, code, body_json, first_seen_at, last_seen_at, seen_count)
      VALUES (1, 1, 'poll', 1, '{"code":1,"desc":"running"}', ${T0_MS + 110}, ${T0_MS + 111}, 3),
             (2, 1, 'notify', 0, '{"code":0,"desc":"success"}', ${T0_MS + 112}, ${T0_MS + 112}, 1);
      INSERT INTO fmgr_snapshots (id, task_id, source, code, body_json, first_seen_at, last_seen_at)
      VALUES (3, 2, 'poll', 612, '{"error":"no such task"}', ${T0_MS + 113}, ${T0_MS + 113});

      INSERT INTO vca_jobs (id, account_id, mgr_url, job_id, bucket, source_url, origin, transfer_id, notify_url, tracking, code,
                            description, notify_result, min_confidence, error_code, error_message, error_at, consecutive_errors,
                            not_found_since, polls, next_poll_at, created_at, updated_at, finished_at)
      VALUES (1, 1, 'http://127.0.0.1:2', 'vca-1', 'bucket-a', 'http://cdn/a.mp4', 'transfer', 1, NULL, 'done', 0,
              'success', 0, 0.75, NULL, NULL, NULL, 0, NULL, 4, NULL, ${T0_MS + 120}, ${T0_MS + 121}, ${T0_MS + 122}),
             (2, 2, NULL, 'vca-2', NULL, NULL, 'typed', NULL, 'http://127.0.0.1:9/v', 'failed', 400,
              'bad request', NULL, 0.1, '400', 'invalid url', ${T0_MS + 123}, 2, NULL, 1, ${T0_MS + 124}, ${T0_MS + 125}, ${T0_MS + 126}, ${T0_MS + 127});
      -- every default of version 2
      INSERT INTO vca_jobs (id, job_id, origin, created_at, updated_at) VALUES (3, 'vca-3', 'watch', ${T0_MS + 128}, ${T0_MS + 128});

      INSERT INTO vca_labels (id, job_row, type, attribute, confidence, position, decision, corrected_text, decided_at)
      VALUES (1, 1, 'object', 'cat', 0.93, 0, 'accepted', NULL, ${T0_MS + 130}),
             (2, 1, 'scene', 'beach', 0.61, 1, 'corrected', 'seaside', ${T0_MS + 131}),
             (3, 1, 'object', 'dog', 0.42, 2, 'rejected', NULL, ${T0_MS + 132});
      INSERT INTO vca_labels (id, job_row, type, attribute, confidence, position) VALUES (4, 2, 'face', 'smile', 0.5, 0);
    `);
  },

  3: (db) => {
    db.exec(`
      INSERT INTO watch_roots (id, path, account_id, bucket, prefix, options_json, paused, unavailable_reason, last_scan_at, created_at, updated_at)
      VALUES (1, '/home/u/Photos', 1, 'bucket-a', 'photos/', '{"localDelete":"keep","ignore":["*.tmp"]}', 1, 'folder missing',
              ${T0_MS + 200}, ${T0_MS + 201}, ${T0_MS + 202});
      -- every default of version 3
      INSERT INTO watch_roots (id, path, account_id, bucket, created_at, updated_at) VALUES (2, '/srv/Ünicode dir', 2, 'bucket-b', ${T0_MS + 203}, ${T0_MS + 203});

      INSERT INTO sync_files (root_id, rel_path, size, mtime_ms, etag, remote_key, state, transfer_id, error_code, error_message, missing_since, updated_at)
      VALUES (1, 'a/b.jpg', 123456, 1699999999123.456, 'FtagB', 'photos/a/b.jpg', 'uploaded', 1, NULL, NULL, NULL, ${T0_MS + 210}),
             (1, 'c.jpg', 77, 1699999999000.5, NULL, NULL, 'queued', 2, NULL, NULL, NULL, ${T0_MS + 211}),
             (1, 'gone.jpg', 10, 1699999990000, 'FtagG', 'photos/gone.jpg', 'missing', NULL, NULL, NULL, ${T0_MS + 212}, ${T0_MS + 213}),
             (2, 'bad\\name', 5, 1699999990001, NULL, NULL, 'rejected', NULL, 'invalid-char', 'key has a backslash', NULL, ${T0_MS + 214});
    `);
  },

  4: (db) => {
    db.exec(`
      INSERT INTO vca_requests (id, account_id, bucket, key, download_domain, source_url, transfer_id, root_id, origin, state,
                                attempts, next_attempt_at, last_error_code, last_error_message, created_at, updated_at)
      VALUES (1, 1, 'bucket-a', 'photos/clip.mp4', 'cdn.example.com', 'http://cdn.example.com/photos/clip.mp4', 1, 1, 'watch',
              'failed', 3, ${T0_MS + 300}, '400', 'invalid url', ${T0_MS + 301}, ${T0_MS + 302});
      -- every default of version 4
      INSERT INTO vca_requests (id, account_id, bucket, key, origin, next_attempt_at, created_at, updated_at)
      VALUES (2, 0, 'bucket-b', 'v.mov', 'transfer', ${T0_MS + 303}, ${T0_MS + 304}, ${T0_MS + 304});
    `);
  },

  5: (db) => {
    // migration 5 adds a column and indexes, no table: a transfer held by the schedule
    db.exec(`
      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, state, block_size, source, paused_by, created_at, updated_at)
      VALUES (5, 1, 'bucket-a', 'night.bin', 'night.bin', '/tmp/night.bin', 'paused', 4194304, 'watch', 'schedule', ${T0_MS + 500}, ${T0_MS + 501});
      INSERT INTO blocks (transfer_id, idx, size, next_offset, restarts) VALUES (5, 0, 4194304, 1048576, 2);
    `);
  },

  6: (db) => {
    // migration 6 adds counts kept by triggers: rows inserted, moved to another state and deleted
    db.exec(`
      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, state, block_size, source, created_at, updated_at)
      VALUES (6, 1, 'bucket-a', 'six.bin', 'six.bin', '/tmp/six.bin', 'queued', 4194304, 'manual', ${T0_MS + 600}, ${T0_MS + 601});
      UPDATE transfers SET state = 'failed' WHERE id = 6;
      INSERT INTO sync_files (root_id, rel_path, size, mtime_ms, state, updated_at)
      VALUES (1, 'six.jpg', 6, 1699999999600, 'queued', ${T0_MS + 602}), (1, 'seven.jpg', 7, 1699999999700, 'queued', ${T0_MS + 603});
      UPDATE sync_files SET state = 'uploaded' WHERE root_id = 1 AND rel_path = 'six.jpg';
      DELETE FROM sync_files WHERE root_id = 1 AND rel_path = 'seven.jpg';
    `);
  },

  7: (db) => {
    // migration 7 adds when an account's secret was set: one with a secret, one without
    db.exec(`
      INSERT INTO accounts (id, name, upload_url, access_key, secret_ref, token_url, created_at, updated_at, secret_changed_at)
      VALUES (3, 'seven', 'https://up7.example.com', 'AK7', 'env:SK7', NULL, ${T0_MS + 700}, ${T0_MS + 701}, ${T0_MS + 702}),
             (4, 'seven token', 'https://up7.example.com', NULL, NULL, 'https://t7.example.com/t', ${T0_MS + 703}, ${T0_MS + 704}, NULL);
    `);
  },

  8: (db) => {
    // migration 8 records where an object was copied from on the service (issue 19)
    db.exec(`
      INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, size, mtime_ms, state, block_size,
                             etag, remote_hash, source, created_at, updated_at, finished_at, copied_from_bucket, copied_from_key)
      VALUES (8, 1, 'bucket-a', 'copy/file.bin', 'copy/file.bin', '/home/u/other/file.bin', 6442450944, 1699999999800,
              'done', 8388608, 'lhEtag', 'lhEtag', 'watch', ${T0_MS + 800}, ${T0_MS + 801}, ${T0_MS + 802},
              'bucket-a', 'dir/file (1).bin');
    `);
  },
  9: (db) => {
    // migration 9 names the transfer an Fmgr task of the engine was submitted for (issue 19)
    db.exec(`
      INSERT INTO fmgr_tasks (id, account_id, mgr_url, persistent_id, origin, op, fops, tracking, created_at, updated_at,
                              for_transfer_id, for_transfer_key)
      VALUES (9, 1, 'http://127.0.0.1:9401', 'z0.copy9', 'submitted', 'copy', 'copy/x', 'done', ${T0_MS + 900},
              ${T0_MS + 901}, 8, 'copy/file.bin');
    `);
  },
  10: (db) => {
    // migration 10 keeps the places whose bytes the account stored apart from the transfers (issue 19)
    db.exec(`
      INSERT INTO stored_objects (account_id, bucket, key, size, etag, transfer_id, stored_at)
      VALUES (1, 'bucket-a', 'cleared/file.bin', 1024, 'lhCleared', NULL, ${T0_MS + 1000});
    `);
  },
  11: (db) => {
    // migration 11 keeps why a watched folder is unavailable by its catalog code and params
    db.exec(`
      INSERT INTO watch_roots (id, path, account_id, bucket, prefix, unavailable_reason, unavailable_code, unavailable_params_json,
                               created_at, updated_at)
      VALUES (11, '/media/usb/Clips', 1, 'bucket-a', 'clips/',
              'the folder /media/usb/Clips is not there (unplugged drive or removed?); watching resumes when it returns',
              'root-missing', '{"path":"/media/usb/Clips"}', ${T0_MS + 1100}, ${T0_MS + 1101});
    `);
  },
};

/**
 * A migration that fills a new column of existing rows with something other than the
 * column's DEFAULT declares it here: BACKFILLS[version][table][column] = expected value
 * computed from the row as it was before that migration.
 */
export type Backfill = (before: Readonly<Record<string, unknown>>) => unknown;
export const BACKFILLS: Record<number, Record<string, Record<string, Backfill>>> = {
  5: { transfers: { paused_by: (before) => (before.state === 'paused' ? 'user' : null) } },
  7: { accounts: { secret_changed_at: (before) => (before.secret_ref === null ? null : before.updated_at) } },
};
