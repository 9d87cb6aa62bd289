import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/store/db';
import { openAppDatabase } from '../../../src-main/store/app-db';
import { addOfflineAccount } from '../../helpers/offline-account';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import { TransferQueryRepo } from '../../../src-main/store/transfer-query';
import { migrate } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations/index';
import Database from 'better-sqlite3';
import type { TransferPatch } from '../../../src-main/engine/ports';

/**
 * Issue 19: "this account stored these bytes under this key, verified" (store/stored-bytes.ts,
 * table stored_objects of migration 10), by an index; it outlives the transfer rows.
 */

let dir: string;
let db: Db;
let store: SqliteTransferStore;
let a: number;
let b: number;

const account = (name: string) => addOfflineAccount(db, name);

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-bytes-'));
  db = openAppDatabase(path.join(dir, 'app.db'));
  store = new SqliteTransferStore(db);
  a = account('a');
  b = account('b');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function transfer(accountId: number, key: string, patch: TransferPatch): number {
  const [id] = store.insertTransfers([{ accountId, bucket: 'bk', key, localPath: `/tmp/${key}`, source: 'watch' }], {
    blockSize: 4 << 20,
    conflict: 'skip',
  });
  store.finishTransfer(id!, patch);
  return id!;
}

const verified = (etag: string, size = 100): TransferPatch => ({ state: 'done', size, etag, remoteHash: etag });

describe('stored objects by their bytes', () => {
  it('finds only done, verified objects of the same account with the same size and etag, newest first, one per place', () => {
    transfer(a, 'old', verified('E1'));
    const newer = transfer(a, 'new', verified('E1'));
    transfer(a, 'new', verified('E1')); // the same place again: listed once (its newest row)
    transfer(b, 'other-account', verified('E1'));
    transfer(a, 'unverified', { state: 'done', size: 100, etag: 'E1', remoteHash: null });
    transfer(a, 'mismatch', { state: 'done', size: 100, etag: 'E1', remoteHash: 'E2' });
    transfer(a, 'failed', { state: 'failed', size: 100, etag: 'E1', remoteHash: 'E1' });
    transfer(a, 'other-size', verified('E1', 101));
    transfer(a, 'other-bytes', verified('E9'));

    const found = store.storedWithBytes(a, 100, 'E1', 5);
    expect(found.map((f) => f.key)).toEqual(['new', 'old']);
    expect(found[0]!.transferId).toBeGreaterThan(newer);
    expect(store.storedWithBytes(a, 100, 'E1', 1).map((f) => f.key)).toEqual(['new']);
    expect(store.storedWithBytes(b, 100, 'E1', 5).map((f) => f.key)).toEqual(['other-account']);
    expect(store.storedWithBytes(a, 100, 'nothing', 5)).toEqual([]);

    expect(store.storedOfSize(a, 100)).toBe(true);
    expect(store.storedOfSize(a, 102)).toBe(false);
    expect(store.storedOfSize(b, 101)).toBe(false);
  });

  it('both lookups use the index of stored_objects, not a scan', () => {
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    expect(plan(`SELECT 1 FROM stored_objects WHERE account_id = 1 AND size = 5 LIMIT 1`)).toContain(
      'stored_objects_bytes',
    );
    const byBytes = plan(
      `SELECT transfer_id, bucket, key FROM stored_objects WHERE account_id = 1 AND size = 5 AND etag = 'x' ORDER BY id DESC LIMIT 3`,
    );
    expect(byBytes).toContain('USING INDEX stored_objects_bytes (account_id=? AND size=? AND etag=?)');
    expect(byBytes).not.toContain('TEMP B-TREE');
  });

  it('survives clearing the finished transfers (before: the lookup read the transfer rows)', () => {
    const id = transfer(a, 'kept', verified('E1'));
    const rows = new TransferQueryRepo(db);
    expect(rows.removeFinished([id])).toEqual([id]);
    expect(store.getTransfer(id)).toBeUndefined();
    expect(store.storedOfSize(a, 100)).toBe(true);
    expect(store.storedWithBytes(a, 100, 'E1', 3)).toEqual([{ transferId: id, bucket: 'bk', key: 'kept' }]);
  });

  it('is dropped when the place is known to hold other bytes or nothing: forgotten, replaced, or done unverified', () => {
    transfer(a, 'gone', verified('E1'));
    store.forgetStored(a, 'bk', 'gone');
    expect(store.storedWithBytes(a, 100, 'E1', 3)).toEqual([]);
    expect(store.storedOfSize(a, 100)).toBe(false);

    transfer(a, 'over', verified('E1'));
    transfer(a, 'over', verified('E2')); // the key now holds other bytes
    expect(store.storedWithBytes(a, 100, 'E1', 3)).toEqual([]);
    expect(store.storedWithBytes(a, 100, 'E2', 3).map((f) => f.key)).toEqual(['over']);

    transfer(a, 'unknown', verified('E3'));
    transfer(a, 'unknown', { state: 'done', size: 100, etag: 'E4', remoteHash: null }); // a 579: not verified
    expect(store.storedWithBytes(a, 100, 'E3', 3)).toEqual([]);
    expect(store.storedWithBytes(a, 100, 'E4', 3)).toEqual([]);

    // A failure or a skip at a place says nothing new about it.
    transfer(a, 'stays', verified('E5'));
    transfer(a, 'stays', { state: 'skipped', size: 100, etag: 'E6', remoteHash: null });
    transfer(a, 'stays', { state: 'failed', size: 100, etag: 'E6', remoteHash: null });
    expect(store.storedWithBytes(a, 100, 'E5', 3).map((f) => f.key)).toEqual(['stays']);
  });

  it('a database of version 9 migrates: each place whose newest done transfer was verified is kept, newest first', () => {
    const file = path.join(dir, 'v9.db');
    const old = new Database(file);
    try {
      migrate(old, MIGRATIONS, 9);
      const now = Date.now();
      old.exec(`
        INSERT INTO accounts (id, name, upload_url, access_key, created_at, updated_at) VALUES (1, 'a', 'http://127.0.0.1:1', 'ak', ${now}, ${now});
      `);
      const ins = old.prepare(
        `INSERT INTO transfers (id, account_id, bucket, key, requested_key, local_path, size, mtime_ms, state, block_size, etag,
                                remote_hash, source, created_at, updated_at, finished_at)
         VALUES (?, 1, 'bk', ?, ?, '/tmp/f', 100, 0, ?, 4194304, ?, ?, 'watch', ${now}, ${now}, ${now})`,
      );
      ins.run(1, 'older', 'older', 'done', 'E1', 'E1');
      ins.run(2, 'newer', 'newer', 'done', 'E1', 'E1');
      ins.run(3, 'replaced', 'replaced', 'done', 'E1', 'E1');
      ins.run(4, 'replaced', 'replaced', 'done', 'E2', 'E2');
      ins.run(5, 'unverified', 'unverified', 'done', 'E1', null);
      ins.run(6, 'failed', 'failed', 'failed', 'E1', 'E1');
    } finally {
      old.close();
    }
    const migrated = openAppDatabase(file);
    try {
      const s = new SqliteTransferStore(migrated);
      expect(s.storedWithBytes(1, 100, 'E1', 5)).toEqual([
        { transferId: 2, bucket: 'bk', key: 'newer' },
        { transferId: 1, bucket: 'bk', key: 'older' },
      ]);
      expect(s.storedWithBytes(1, 100, 'E2', 5).map((f) => f.key)).toEqual(['replaced']);
      const indexes = migrated.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).pluck().all();
      expect(indexes).not.toContain('transfers_stored_bytes');
    } finally {
      migrated.close();
    }
  });

  it('records where a copied object came from, and clears it when a later run sends the bytes', () => {
    const id = transfer(a, 'k', { ...verified('E1'), copiedFrom: { bucket: 'bk', key: 'src' } });
    expect(store.getTransfer(id)!.copiedFrom).toEqual({ bucket: 'bk', key: 'src' });
    store.finishTransfer(id, { ...verified('E1'), copiedFrom: null });
    expect(store.getTransfer(id)!.copiedFrom).toBeNull();
  });
});
