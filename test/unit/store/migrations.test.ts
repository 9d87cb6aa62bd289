import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Db,
  type Migration,
  MigrationError,
  migrate,
  openDatabase,
  schemaVersion,
} from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations/index';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { SyncRepo } from '../../../src-main/store/sync-repo';
import { BACKFILLS, SEEDERS } from './migration-seeds';

/*
 * For every version k from 0 to the latest: a database is built step by step to exactly
 * version k, each version's seeder writing raw rows against its own schema, then opened with
 * today's code (migrating it to the latest), and every row must still be there with its
 * values; columns added after k hold their DEFAULT (or the BACKFILLS value). A new migration
 * only needs its entry in migration-seeds.ts.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-mig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LATEST = MIGRATIONS.length;

type Row = Record<string, unknown>;
interface ColumnInfo {
  name: string;
  dflt_value: string | null;
  pk: number;
}

function userTables(db: Db): string[] {
  return db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
}

function columns(db: Db, table: string): ColumnInfo[] {
  return db.pragma(`table_info(${JSON.stringify(table)})`) as ColumnInfo[];
}

/** Primary-key columns of a table, or rowid for a table without one. */
function keyColumns(db: Db, table: string): string[] {
  const pk = columns(db, table)
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  return pk.length > 0 ? pk : ['rowid'];
}

/** Every row of every table, keyed by table, ordered by primary key. */
function snapshot(db: Db): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const t of userTables(db)) {
    const key = keyColumns(db, t);
    const extra = key[0] === 'rowid' ? 'rowid, ' : '';
    out.set(
      t,
      db.prepare(`SELECT ${extra}* FROM "${t}" ORDER BY ${key.map((c) => `"${c}"`).join(', ')}`).all() as Row[],
    );
  }
  return out;
}

/** The schema as (table → columns with type, notnull, default, pk) plus index names. */
function schemaShape(db: Db): unknown {
  const tables = userTables(db).map((t) => [t, db.pragma(`table_info("${t}")`)]);
  const indexes = db
    .prepare(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .all();
  return { tables, indexes };
}

/** Builds `file` to exactly version k, running each version's seeder right after its migration. */
function buildAtVersion(file: string, k: number, migrations: readonly Migration[] = MIGRATIONS): void {
  const db = new Database(file);
  try {
    db.pragma('foreign_keys = ON');
    for (let v = 1; v <= k; v++) {
      migrate(db, migrations, v);
      expect(schemaVersion(db)).toBe(v);
      const seed = SEEDERS[v];
      if (!seed) throw new Error(`no seeder for migration ${v}: add one to test/unit/store/migration-seeds.ts`);
      seed(db);
    }
    expect(schemaVersion(db)).toBe(k);
  } finally {
    db.close();
  }
}

function readSnapshot(file: string): { version: number; rows: Map<string, Row[]> } {
  const db = new Database(file, { readonly: true });
  try {
    return { version: schemaVersion(db), rows: snapshot(db) };
  } finally {
    db.close();
  }
}

/** The value a column added after `since` must hold in a row that existed before it. */
function expectedNewValue(db: Db, since: number, table: string, col: ColumnInfo, before: Row): unknown {
  for (let v = since + 1; v <= LATEST; v++) {
    const fill = BACKFILLS[v]?.[table]?.[col.name];
    if (fill) return fill(before);
  }
  if (col.dflt_value === null) return null;
  return db.prepare(`SELECT ${col.dflt_value}`).pluck().get();
}

/** Checks that every row of `before` (taken at version `since`) is in `db` with its values. */
function expectRowsSurvived(db: Db, since: number, before: Map<string, Row[]>): void {
  const tablesNow = new Set(userTables(db));
  for (const [table, rows] of before) {
    expect(tablesNow.has(table), `table ${table} of version ${since} is gone after migrating to ${LATEST}`).toBe(true);
    const cols = columns(db, table);
    const key = keyColumns(db, table);
    const count = db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get();
    expect(count, `row count of ${table}`).toBe(rows.length);
    const byKey = db.prepare(
      `SELECT ${key[0] === 'rowid' ? 'rowid, ' : ''}* FROM "${table}" WHERE ${key.map((c) => `"${c}" IS ?`).join(' AND ')}`,
    );
    for (const old of rows) {
      const now = byKey.get(...key.map((c) => old[c])) as Row | undefined;
      const where = `${table} ${key.map((c) => `${c}=${String(old[c])}`).join(',')}`;
      expect(now, `row ${where} lost`).toBeDefined();
      const expected: Row = {};
      for (const c of cols) {
        expected[c.name] = c.name in old ? old[c.name] : expectedNewValue(db, since, table, c, old);
      }
      if (key[0] === 'rowid') expected.rowid = old.rowid;
      expect(now, `row ${where}`).toEqual(expected);
    }
  }
}

/** The per-state counts the triggers keep (migration 6) equal the rows counted by GROUP BY. */
function expectCountsMatchRows(db: Db): void {
  const nonZero = (sql: string) => (db.prepare(sql).all() as Row[]).filter((r) => r.n !== 0);
  expect(nonZero('SELECT root_id, state, n FROM sync_file_counts ORDER BY root_id, state')).toEqual(
    nonZero('SELECT root_id, state, COUNT(*) AS n FROM sync_files GROUP BY root_id, state ORDER BY root_id, state'),
  );
  expect(nonZero('SELECT state, n FROM transfer_counts ORDER BY state')).toEqual(
    nonZero('SELECT state, COUNT(*) AS n FROM transfers GROUP BY state ORDER BY state'),
  );
}

describe('app database migrations', () => {
  const fresh = (): unknown => {
    const db = openDatabase(path.join(dir, 'fresh.db'), MIGRATIONS);
    try {
      return schemaShape(db);
    } finally {
      db.close();
    }
  };

  it('has a seeder for every registered migration', () => {
    for (let v = 1; v <= LATEST; v++) {
      expect(SEEDERS[v], `migration ${v} has no seeder in test/unit/store/migration-seeds.ts`).toBeTypeOf('function');
    }
  });

  for (let k = 0; k <= LATEST; k++) {
    it(`migrates a database holding version-${k} data to ${LATEST}, keeping every row and value`, () => {
      const file = path.join(dir, `v${k}.db`);
      buildAtVersion(file, k);
      const before = readSnapshot(file);
      expect(before.version).toBe(k);
      // the seeders put rows into every table that exists at version k
      for (const [table, rows] of before.rows)
        expect(rows.length, `no seed rows in ${table} at version ${k}`).toBeGreaterThan(0);

      const db = openDatabase(file, MIGRATIONS);
      try {
        expect(schemaVersion(db)).toBe(LATEST);
        expectRowsSurvived(db, k, before.rows);
        expect(db.pragma('foreign_key_check')).toEqual([]);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expectCountsMatchRows(db);
        if (k >= 1) {
          // today's repositories read rows written by version k
          const store = new SqliteTransferStore(db);
          expect(store.getTransfer(1)).toMatchObject({
            bucket: 'bucket-a',
            key: 'dir/file (1).bin',
            state: 'done',
            size: 6442450944,
          });
          expect(store.getTransfer(3)).toMatchObject({ state: 'queued', size: 0, mtimeMs: 0, batch: null });
          expect(store.listBlocks(2)[1]).toMatchObject({ index: 1, nextOffset: 262144, lastCtx: 'ctx-1' });
          expect(new AccountRepo(db).byName('Équipe remote')).toMatchObject({
            tokenUrl: 'https://tokens.example.com/t',
            accessKey: null,
          });
        }
        if (k >= 3) {
          // a folder's reason stored before migration 11 has no code: the UI shows its text
          const repo = new SyncRepo(db);
          expect(repo.getRoot(1)).toMatchObject({
            unavailableReason: 'folder missing',
            unavailableCode: null,
            unavailableParams: null,
          });
          if (k >= 11)
            expect(repo.getRoot(11)).toMatchObject({
              unavailableCode: 'root-missing',
              unavailableParams: { path: '/media/usb/Clips' },
            });
        }
      } finally {
        db.close();
      }
      expect(readSnapshot(file).version).toBe(LATEST);
      // the same schema as a database created by today's code
      const db2 = new Database(file, { readonly: true });
      try {
        expect(schemaShape(db2)).toEqual(fresh());
      } finally {
        db2.close();
      }
    });
  }

  it('refuses a database newer than the code with a MigrationError and leaves it untouched', () => {
    const file = path.join(dir, 'new.db');
    buildAtVersion(file, LATEST);
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST + 1}`);
    raw.close();
    const before = readSnapshot(file);

    let err: unknown;
    try {
      openDatabase(file, MIGRATIONS).close();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    const message = (err as Error).message;
    expect(message).toContain(`version ${LATEST + 1}`);
    expect(message).toContain(`only up to ${LATEST}`);
    expect(message).toMatch(/newer Blocklift|another --db/);
    expect(readSnapshot(file)).toEqual(before);
  });

  it('leaves the database at the previous version when a migration throws', () => {
    const file = path.join(dir, 'broken.db');
    buildAtVersion(file, LATEST);
    const before = readSnapshot(file);
    const broken: Migration = {
      version: LATEST + 1,
      name: 'broken',
      up(db) {
        db.exec('CREATE TABLE half_done (x INTEGER)');
        db.exec('DELETE FROM settings');
        db.exec(`UPDATE transfers SET state = 'failed'`);
        throw new Error('boom in the middle of a migration');
      },
    };
    const db = new Database(file);
    try {
      expect(() => migrate(db, [...MIGRATIONS, broken])).toThrow('boom in the middle of a migration');
      expect(schemaVersion(db)).toBe(LATEST);
    } finally {
      db.close();
    }
    expect(readSnapshot(file)).toEqual(before);
    // the real migrations still open it normally afterwards
    openDatabase(file, MIGRATIONS).close();
  });

  it('stops at the failed step: earlier steps stay applied, later ones do not run', () => {
    const file = path.join(dir, 'mid.db');
    buildAtVersion(file, 1);
    const before = readSnapshot(file);
    const second = MIGRATIONS.find((m) => m.version === 2);
    if (!second) throw new Error('test needs at least two migrations');
    const brokenSecond: Migration = {
      version: 2,
      name: 'broken second',
      up(db) {
        second.up(db);
        throw new Error('boom after the second step');
      },
    };
    const list = MIGRATIONS.map((m) => (m.version === 2 ? brokenSecond : m));
    const db = new Database(file);
    try {
      expect(() => migrate(db, list)).toThrow('boom after the second step');
      expect(schemaVersion(db)).toBe(1);
    } finally {
      db.close();
    }
    expect(readSnapshot(file)).toEqual(before);
    // with the real steps the same file migrates to the latest
    const ok = openDatabase(file, MIGRATIONS);
    try {
      expect(schemaVersion(ok)).toBe(LATEST);
      expectRowsSurvived(ok, 1, before.rows);
    } finally {
      ok.close();
    }
  });

  it('refuses migrations that are not numbered 1, 2, 3…', () => {
    const db = new Database(':memory:');
    try {
      const gap = MIGRATIONS.filter((m) => m.version !== 1);
      expect(() => migrate(db, gap)).toThrow(MigrationError);
      expect(schemaVersion(db)).toBe(0);
      expect(userTables(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('uses WAL with synchronous NORMAL', () => {
    const db = openDatabase(path.join(dir, 'w.db'), MIGRATIONS);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });
});
