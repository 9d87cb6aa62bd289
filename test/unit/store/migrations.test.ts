import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationError, migrate, openDatabase, schemaVersion } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations/index';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import { AccountRepo } from '../../../src-main/store/account-repo';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-mig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LATEST = MIGRATIONS.length;

/** Writes core rows (accounts, transfers, blocks) into a database at version ≥ 1. */
function seedCore(file: string): void {
  const db = new Database(file);
  const accountId = new AccountRepo(db).upsert({ name: 'Local', uploadUrl: 'http://127.0.0.1:1', mgrUrl: null, downloadDomain: null, accessKey: 'ak', secretRef: 'env:BLOCKLIFT_SK', tokenUrl: null });
  const store = new SqliteTransferStore(db);
  const [id] = store.insertTransfers([{ accountId, bucket: 'b', key: 'k', localPath: '/tmp/x', source: 'cli' }], { blockSize: 4 << 20, conflict: 'skip' });
  store.resetBlocks(id!, 'batch-1', 5 << 20, 123, [4 << 20, 1 << 20]);
  store.commitChunk(id!, 0, 1 << 20, 'ctx-1', 1000, Buffer.alloc(0));
  db.close();
}

function checkCore(file: string): void {
  const db = openDatabase(file, MIGRATIONS);
  try {
    expect(schemaVersion(db)).toBe(LATEST);
    const store = new SqliteTransferStore(db);
    const t = store.getTransfer(1);
    expect(t).toMatchObject({ bucket: 'b', key: 'k', state: 'queued', batch: 'batch-1', size: 5 << 20, mtimeMs: 123 });
    expect(store.listBlocks(1)[0]).toMatchObject({ index: 0, nextOffset: 1 << 20, lastCtx: 'ctx-1' });
    expect(new AccountRepo(db).byName('Local')?.secretRef).toBe('env:BLOCKLIFT_SK');
  } finally {
    db.close();
  }
}

describe('app database migrations', () => {
  it('creates the latest schema from an empty file (0 → latest)', () => {
    const file = path.join(dir, 'a.db');
    openDatabase(file, MIGRATIONS).close();
    seedCore(file);
    checkCore(file);
  });

  for (let k = 1; k < LATEST; k++) {
    it(`migrates a database at version ${k} to ${LATEST} keeping its data`, () => {
      const file = path.join(dir, `v${k}.db`);
      const db = new Database(file);
      migrate(db, MIGRATIONS, k);
      expect(schemaVersion(db)).toBe(k);
      db.close();
      seedCore(file);
      checkCore(file);
    });
  }

  it('refuses a database newer than the code', () => {
    const file = path.join(dir, 'new.db');
    const db = new Database(file);
    db.pragma(`user_version = ${LATEST + 1}`);
    db.close();
    expect(() => openDatabase(file, MIGRATIONS)).toThrow(MigrationError);
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
