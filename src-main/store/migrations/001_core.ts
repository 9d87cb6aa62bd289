import type { Migration } from '../db';

/**
 * Core schema (design.md "Data model"): accounts, transfers, their blocks, settings and an
 * event log. Times are Unix milliseconds; sizes and offsets are bytes.
 *
 * blocks rows are written after every chunk reply (next_offset, last_ctx, ctx_time_ms) so a
 * killed process continues each block where the service left it. unit_sha1s holds the
 * 20-byte SHA1 digests of the finished 4 MiB etag units of the block, in order, so a resumed
 * upload re-reads at most the unfinished part of one unit per block to rebuild its etag.
 */
export const migration001Core: Migration = {
  version: 1,
  name: 'core',
  up(db) {
    db.exec(`
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        upload_url TEXT NOT NULL,
        mgr_url TEXT,
        download_domain TEXT,
        access_key TEXT,
        -- where the secret lives (keychain id, env var name, file path), never the secret itself
        secret_ref TEXT,
        token_url TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE transfers (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        bucket TEXT NOT NULL,
        -- the key the object has (after a rename on conflict); requested_key is what was asked
        key TEXT NOT NULL,
        requested_key TEXT NOT NULL,
        local_path TEXT NOT NULL,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ms INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL CHECK (state IN ('queued','hashing','uploading','paused','completing','done','failed','canceled','skipped')),
        batch TEXT,
        block_size INTEGER NOT NULL,
        etag TEXT,
        remote_hash TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        bytes_sent INTEGER NOT NULL DEFAULT 0,
        last_error_code TEXT,
        last_error_message TEXT,
        warning TEXT,
        source TEXT NOT NULL CHECK (source IN ('watch','manual','cli')),
        options_json TEXT NOT NULL DEFAULT '{}',
        return_body_json TEXT,
        priority INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX transfers_runnable ON transfers(state, priority DESC, id);
      CREATE INDEX transfers_path ON transfers(local_path);

      CREATE TABLE blocks (
        transfer_id INTEGER NOT NULL REFERENCES transfers(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        size INTEGER NOT NULL,
        next_offset INTEGER NOT NULL DEFAULT 0,
        last_ctx TEXT,
        ctx_time_ms INTEGER,
        unit_sha1s BLOB NOT NULL DEFAULT x'',
        PRIMARY KEY (transfer_id, idx)
      ) WITHOUT ROWID;

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      CREATE TABLE event_log (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        level TEXT NOT NULL CHECK (level IN ('info','warn','error')),
        kind TEXT NOT NULL,
        transfer_id INTEGER,
        message TEXT NOT NULL,
        data_json TEXT
      );
      CREATE INDEX event_log_at ON event_log(at);
    `);
  },
};
