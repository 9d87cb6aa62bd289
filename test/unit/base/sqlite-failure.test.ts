import Database from 'better-sqlite3';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureDetail, sqliteFailureOf } from '../../../src-main/base/sqlite-failure';

/** What the thrown error of `fn` is classified as (fn must throw). */
function failureOf(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    return { kind: sqliteFailureOf(e), code: (e as { code?: string }).code };
  }
  throw new Error('expected a failure');
}

describe('sqliteFailureOf: real failures of better-sqlite3', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bl-sqlite-failure-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('another connection holding the write lock: busy', () => {
    const file = path.join(dir, 'busy.db');
    const a = new Database(file);
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (x)');
    const b = new Database(file);
    b.pragma('busy_timeout = 0');
    a.exec('BEGIN IMMEDIATE');
    expect(failureOf(() => b.exec('INSERT INTO t VALUES (1)'))).toEqual({ kind: 'busy', code: 'SQLITE_BUSY' });
    a.exec('ROLLBACK');
    a.close();
    b.close();
  });

  it('a constraint, a trigger, a full database, a closed connection, a file that is no database', async () => {
    const db = new Database(path.join(dir, 'rows.db'));
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (name <> ''));
      CREATE TRIGGER refuse BEFORE INSERT ON t WHEN NEW.name = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
    db.exec(`INSERT INTO t VALUES (1, 'a')`);
    expect(failureOf(() => db.exec(`INSERT INTO t VALUES (1, 'b')`))).toEqual({
      kind: 'row',
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(failureOf(() => db.exec(`INSERT INTO t VALUES (2, NULL)`))).toEqual({
      kind: 'row',
      code: 'SQLITE_CONSTRAINT_NOTNULL',
    });
    expect(failureOf(() => db.exec(`INSERT INTO t VALUES (2, '')`))).toEqual({
      kind: 'row',
      code: 'SQLITE_CONSTRAINT_CHECK',
    });
    expect(failureOf(() => db.exec(`INSERT INTO t VALUES (2, 'bad')`))).toEqual({
      kind: 'row',
      code: 'SQLITE_CONSTRAINT_TRIGGER',
    });
    expect(failureOf(() => db.exec(`INSERT INTO t VALUES ('x', 'c')`))).toEqual({
      kind: 'row',
      code: 'SQLITE_MISMATCH',
    });
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    expect(failureOf(() => db.prepare(`INSERT INTO t (name) VALUES (?)`).run('x'.repeat(100_000)))).toEqual({
      kind: 'disk-full',
      code: 'SQLITE_FULL',
    });
    db.close();
    expect(failureOf(() => db.exec('SELECT 1'))).toEqual({ kind: 'closed', code: undefined });

    const junk = path.join(dir, 'junk.db');
    await writeFile(junk, Buffer.alloc(8192, 'this is not a database file '));
    const bad = new Database(junk);
    expect(failureOf(() => bad.exec('SELECT * FROM sqlite_master'))).toEqual({
      kind: 'corrupt',
      code: 'SQLITE_NOTADB',
    });
    bad.close();
  });

  // Errors that cannot be provoked on demand here (a failing disk, a damaged page): the same
  // SqliteError class with the extended codes SQLite gives them.
  it.each([
    ['SQLITE_IOERR_WRITE', 'io'],
    ['SQLITE_IOERR_FSYNC', 'io'],
    ['SQLITE_IOERR', 'io'],
    ['SQLITE_NOMEM', 'io'],
    ['SQLITE_BUSY_SNAPSHOT', 'busy'],
    ['SQLITE_LOCKED', 'busy'],
    ['SQLITE_LOCKED_SHAREDCACHE', 'busy'],
    ['SQLITE_PROTOCOL', 'busy'],
    ['SQLITE_CORRUPT', 'corrupt'],
    ['SQLITE_CORRUPT_INDEX', 'corrupt'],
    ['SQLITE_TOOBIG', 'row'],
    ['SQLITE_RANGE', 'row'],
    ['SQLITE_READONLY', 'other'],
    ['SQLITE_CANTOPEN', 'other'],
    ['SQLITE_IOERRX', 'other'], // not a prefix match
  ] as const)('%s is %s', (code, kind) => {
    expect(sqliteFailureOf(new Database.SqliteError('x', code))).toBe(kind);
  });

  it('no code, a plain value, an ENOSPC: other, other, disk-full; the detail names the code', () => {
    expect(sqliteFailureOf(new Error('boom'))).toBe('other');
    expect(sqliteFailureOf(undefined)).toBe('other');
    expect(sqliteFailureOf(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe('disk-full');
    expect(failureDetail(new Database.SqliteError('database is locked', 'SQLITE_BUSY'))).toBe(
      'SQLITE_BUSY: database is locked',
    );
    expect(failureDetail(new Error('boom'))).toBe('boom');
  });
});
