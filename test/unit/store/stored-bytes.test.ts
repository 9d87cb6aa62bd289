import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/store/db';
import { openAppDatabase } from '../../../src-main/store/app-db';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import type { TransferPatch } from '../../../src-main/engine/ports';

/** Issue 19: "a done, verified object with these bytes on this account" (store/stored-bytes.ts), by an index. */

let dir: string;
let db: Db;
let store: SqliteTransferStore;
let a: number;
let b: number;

const account = (name: string) =>
  new AccountRepo(db).upsert({
    name,
    uploadUrl: 'http://127.0.0.1:1',
    mgrUrl: null,
    downloadDomain: null,
    accessKey: 'ak',
    secretRef: null,
    tokenUrl: null,
  });

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

  it('both lookups use the partial index, not a scan of the transfers', () => {
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    const verifiedSql = `state = 'done' AND remote_hash IS NOT NULL AND remote_hash = etag`;
    expect(plan(`SELECT 1 FROM transfers WHERE account_id = 1 AND size = 5 AND ${verifiedSql} LIMIT 1`)).toContain(
      'transfers_stored_bytes',
    );
    expect(
      plan(
        `SELECT id FROM transfers WHERE account_id = 1 AND size = 5 AND etag = 'x' AND ${verifiedSql} ORDER BY id DESC`,
      ),
    ).toContain('USING INDEX transfers_stored_bytes (account_id=? AND size=? AND etag=?)');
  });

  it('records where a copied object came from, and clears it when a later run sends the bytes', () => {
    const id = transfer(a, 'k', { ...verified('E1'), copiedFrom: { bucket: 'bk', key: 'src' } });
    expect(store.getTransfer(id)!.copiedFrom).toEqual({ bucket: 'bk', key: 'src' });
    store.finishTransfer(id, { ...verified('E1'), copiedFrom: null });
    expect(store.getTransfer(id)!.copiedFrom).toBeNull();
  });
});
