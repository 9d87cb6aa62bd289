import type { Migration } from '../base/sqlite';

/**
 * Schema of the emulator's own database (<data>/emulator.db): every table of the emulator,
 * the Fmgr tasks and VCA jobs included. Never edit a step that has shipped; add one.
 */
export const EMULATOR_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'objects, unmerged blocks, merges, meta',
    up(db) {
      db.exec(`
        CREATE TABLE meta (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
        CREATE TABLE objects (
          bucket TEXT NOT NULL,
          key TEXT NOT NULL,
          file TEXT NOT NULL,
          size INTEGER NOT NULL,
          hash TEXT NOT NULL,
          mime_type TEXT NOT NULL,
          put_time INTEGER NOT NULL,
          expires_at INTEGER,
          PRIMARY KEY (bucket, key)
        ) WITHOUT ROWID;
        CREATE INDEX objects_expiry ON objects (expires_at) WHERE expires_at IS NOT NULL;
        -- Files whose object row is gone but whose bytes still need removing.
        CREATE TABLE orphan_files (
          file TEXT PRIMARY KEY
        );
        CREATE TABLE blocks (
          id TEXT PRIMARY KEY,
          batch TEXT NOT NULL,
          block_order INTEGER NOT NULL,
          block_size INTEGER NOT NULL,
          received INTEGER NOT NULL,
          crc32 INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX blocks_age ON blocks (updated_at);
        -- Completed mkfile calls, so a retried mkfile (same batch, same ctx list) gets the same reply.
        CREATE TABLE merges (
          batch TEXT NOT NULL,
          ctx_digest TEXT NOT NULL,
          bucket TEXT NOT NULL,
          key TEXT NOT NULL,
          hash TEXT NOT NULL,
          reply TEXT NOT NULL,
          merged_at INTEGER NOT NULL,
          PRIMARY KEY (batch, ctx_digest)
        );
      `);
    },
  },
  {
    version: 2,
    name: 'unit digests of unmerged blocks',
    up(db) {
      // The etag's 4 MiB unit SHA1s finished so far, 20 bytes each, in order: mkfile
      // combines them instead of hashing the object again.
      db.exec("ALTER TABLE blocks ADD COLUMN unit_digests BLOB NOT NULL DEFAULT x''");
    },
  },
  {
    version: 3,
    name: 'blocks written in place into a per-batch assembly file',
    up(db) {
      // NULL: the block's bytes are <data>/blocks/<id>. Else they are in
      // <data>/assemblies/<assembly> at block_order * block_size, so mkfile needs no copy.
      db.exec(
        'ALTER TABLE blocks ADD COLUMN assembly TEXT; CREATE INDEX blocks_assembly ON blocks (assembly) WHERE assembly IS NOT NULL;',
      );
    },
  },
  {
    version: 4,
    name: 'Fmgr tasks',
    up(db) {
      // IF NOT EXISTS: data folders of emulators before this step created the table themselves.
      db.exec(`
        CREATE TABLE IF NOT EXISTS emu_fmgr_tasks (
          id TEXT PRIMARY KEY,
          op TEXT NOT NULL,
          notify_url TEXT,
          force INTEGER NOT NULL,
          separate INTEGER NOT NULL,
          code INTEGER NOT NULL,
          items TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS emu_fmgr_tasks_code ON emu_fmgr_tasks(code);
      `);
    },
  },
  {
    version: 5,
    name: 'VCA jobs',
    up(db) {
      // IF NOT EXISTS: as in step 4.
      db.exec(`
        CREATE TABLE IF NOT EXISTS emu_vca_jobs (
          job_id TEXT PRIMARY KEY,
          bucket TEXT NOT NULL,
          source TEXT NOT NULL,
          notify_url TEXT,
          types TEXT,
          code INTEGER NOT NULL,
          desc TEXT NOT NULL,
          notify_result INTEGER NOT NULL,
          results TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 6,
    name: 'merges recorded with the object, their reply after',
    up(db) {
      // mkfile records its merge in the transaction that stores the object, before the reply
      // exists (reply '' until then), so a crash in between leaves something a retry can finish;
      // the Fmgr task submitted in that transaction is kept for the retry's reply.
      db.exec('ALTER TABLE merges ADD COLUMN persistent_id TEXT');
    },
  },
];
