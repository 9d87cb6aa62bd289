import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * A neutral better-sqlite3 helper shared by the app's store and the emulator: open a
 * database file with the pragmas both rely on, and bring its schema up to date with
 * numbered migrations recorded in `user_version`.
 */

export type Db = Database.Database;

/** One numbered schema step. `up` runs inside a transaction with the version bump. */
export interface Migration {
  version: number;
  name: string;
  up(db: Db): void;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/**
 * Opens (creating when missing, with its folder) a SQLite database in WAL mode with
 * synchronous=NORMAL, foreign keys on and a busy timeout, then brings its schema up to date
 * with `migrations` (not when read-only). The caller owns the handle and closes it.
 */
export function openDatabase(file: string, migrations: readonly Migration[], opts: { readonly?: boolean } = {}): Db {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { readonly: opts.readonly ?? false });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (!opts.readonly) migrate(db, migrations);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies, in order, every migration above the database's user_version (up to `target`
 * when given), each in its own transaction. Migrations must be numbered 1, 2, 3… Refuses a
 * database newer than this code knows (a downgrade would corrupt it).
 */
export function migrate(db: Db, migrations: readonly Migration[], target?: number): void {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new MigrationError(`migrations must be numbered 1, 2, 3…; found ${m.version} at position ${i + 1}`);
  });
  const latest = sorted.length;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new MigrationError(
      `the database is at schema version ${current} but this Blocklift knows only up to ${latest}: use a newer Blocklift or another database file (--db, --data)`,
    );
  }
  const goal = target ?? latest;
  for (const m of sorted) {
    if (m.version <= current || m.version > goal) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
