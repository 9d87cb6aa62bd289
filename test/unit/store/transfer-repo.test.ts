import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/store/db';
import { openAppDatabase } from '../../../src-main/store/app-db';
import { addOfflineAccount } from '../../helpers/offline-account';
import { SqliteTransferStore, StoreDataError } from '../../../src-main/store/transfer-repo';
import { TransferQueryRepo } from '../../../src-main/store/transfer-query';

let dir: string;
let db: Db;
let store: SqliteTransferStore;
let accountId: number;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-repo-'));
  db = openAppDatabase(path.join(dir, 'app.db'));
  store = new SqliteTransferStore(db);
  accountId = addOfflineAccount(db, 'a');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const req = (key: string, priority = 0) => ({
  accountId,
  bucket: 'b',
  key,
  localPath: `/tmp/${key}`,
  source: 'manual' as const,
  priority,
  options: { vars: { user: 'x' } },
});

describe('SqliteTransferStore', () => {
  it('inserts in one transaction and lists runnable transfers by priority then age', () => {
    const ids = store.insertTransfers([req('a'), req('b', 5), req('c')], { blockSize: 4 << 20, conflict: 'rename' });
    expect(ids).toHaveLength(3);
    expect(store.listTransfers(['queued']).map((t) => t.key)).toEqual(['b', 'a', 'c']);
    expect(store.getTransfer(ids[0]!)?.options).toEqual({ vars: { user: 'x' }, conflict: 'rename' });
    expect(store.listTransfers(['queued'], 1)).toHaveLength(1);
  });

  it("keeps the size a request gives (the caller's stat or scan) for a transfer that waits; 0 when none is given", () => {
    const [sized, unsized] = store.insertTransfers([{ ...req('s'), size: 123_456 }, req('u')], {
      blockSize: 4 << 20,
      conflict: 'skip',
    });
    expect(store.getTransfer(sized!)?.size).toBe(123_456);
    expect(store.getTransfer(unsized!)?.size).toBe(0);
  });

  it('totals per state follow inserts, state moves and deletes (unfiltered: counts kept by triggers)', () => {
    const query = new TransferQueryRepo(db);
    const ids = store.insertTransfers([req('a'), req('b'), req('c')], { blockSize: 4 << 20, conflict: 'skip' });
    store.updateTransfer(ids[0]!, { state: 'done' });
    store.updateTransfer(ids[0]!, { state: 'done', attempts: 2 });
    store.moveStates(['queued'], 'paused');
    expect(query.totals()).toMatchObject({ done: 1, paused: 2, queued: 0 });
    db.prepare('DELETE FROM transfers WHERE id = ?').run(ids[1]!);
    // the same numbers as counting the rows through a filter
    expect(query.totals()).toEqual(query.totals({ accountId }));
    expect(query.totals()).toMatchObject({ done: 1, paused: 1, queued: 0 });
  });

  it('patches only the given fields and keeps errors and returnBody', () => {
    const [id] = store.insertTransfers([req('a')], { blockSize: 4 << 20, conflict: 'skip' });
    store.updateTransfer(id!, {
      state: 'failed',
      lastError: { code: 'file-missing', message: 'gone' },
      returnBody: { who: 'x' },
    });
    const t = store.getTransfer(id!)!;
    expect(t.state).toBe('failed');
    expect(t.lastError).toEqual({ code: 'file-missing', message: 'gone' });
    expect(t.returnBody).toEqual({ who: 'x' });
    expect(t.key).toBe('a');
    store.updateTransfer(id!, { lastError: null });
    expect(store.getTransfer(id!)!.lastError).toBeNull();
  });

  it('keeps blocks, their ctx and unit digests; resets one or all', () => {
    const [id] = store.insertTransfers([req('a')], { blockSize: 4 << 20, conflict: 'skip' });
    store.resetBlocks(id!, 'batch', 9 << 20, 42, [4 << 20, 4 << 20, 1 << 20]);
    const digest = Buffer.alloc(20, 7);
    store.commitChunk(id!, 1, 4 << 20, 'ctx-b', 99, digest);
    let blocks = store.listBlocks(id!);
    expect(blocks.map((b) => b.size)).toEqual([4 << 20, 4 << 20, 1 << 20]);
    expect(blocks[1]).toMatchObject({ nextOffset: 4 << 20, lastCtx: 'ctx-b', ctxTimeMs: 99 });
    expect(blocks[1]!.unitSha1s.equals(digest)).toBe(true);
    store.resetBlock(id!, 1);
    blocks = store.listBlocks(id!);
    expect(blocks[1]).toMatchObject({ nextOffset: 0, lastCtx: null });
    expect(store.getTransfer(id!)).toMatchObject({ batch: 'batch', size: 9 << 20, mtimeMs: 42 });
    expect(() => store.commitChunk(id!, 7, 1, 'x', 1, Buffer.alloc(0))).toThrow(StoreDataError);
    store.deleteBlocks(id!);
    expect(store.listBlocks(id!)).toEqual([]);
  });

  it('moves interrupted states back to queued', () => {
    const ids = store.insertTransfers([req('a'), req('b'), req('c')], { blockSize: 4 << 20, conflict: 'skip' });
    store.updateTransfer(ids[0]!, { state: 'uploading' });
    store.updateTransfer(ids[1]!, { state: 'completing' });
    store.updateTransfer(ids[2]!, { state: 'done' });
    expect(store.moveStates(['uploading', 'completing', 'hashing'], 'queued')).toBe(2);
    expect(store.getTransfer(ids[2]!)!.state).toBe('done');
  });

  it('refuses to hand out a row with an unknown state instead of crashing later', () => {
    const [id] = store.insertTransfers([req('a')], { blockSize: 4 << 20, conflict: 'skip' });
    db.pragma('ignore_check_constraints = ON');
    db.prepare("UPDATE transfers SET state = 'weird' WHERE id = ?").run(id);
    expect(() => store.getTransfer(id!)).toThrow(StoreDataError);
  });

  it('a full database fails the write with SQLITE_FULL (what the engine turns into db-write-failed)', () => {
    const [id] = store.insertTransfers([req('a')], { blockSize: 4 << 20, conflict: 'skip' });
    store.resetBlocks(id!, 'batch', 4 << 20, 1, [4 << 20]);
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    let code: string | undefined;
    try {
      store.logEvent({ level: 'info', kind: 'x', message: 'y'.repeat(200_000) });
    } catch (e) {
      code = (e as { code?: string }).code;
    }
    expect(code).toBe('SQLITE_FULL');
  });
});
