import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UploadEngine } from '../../../src-main/engine/engine';
import { ADD_SLICE_FILES, AddFilesError, addFiles, type AddFilesInput } from '../../../src-main/service/add-files';
import { addOfflineAccount } from '../../helpers/offline-account';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';

/**
 * addFiles as the app service calls it: plain data in and out, over a real SQLite store and
 * a real engine that is not started (enqueue only records the transfers).
 */

let dir: string;
let db: Db;
let store: SqliteTransferStore;
let engine: UploadEngine;
let accountId: number;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-add-files-'));
  db = openAppDatabase(path.join(dir, 'q.db'));
  store = new SqliteTransferStore(db);
  accountId = addOfflineAccount(db, 'test');
  engine = new UploadEngine({
    store,
    account: () => {
      throw new Error('not started: no account is resolved');
    },
  });
});
afterEach(async () => {
  await engine.close();
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const input = (paths: string[], more: Partial<AddFilesInput> = {}): AddFilesInput => ({
  paths: paths.map((p) => path.join(dir, p)),
  accountId,
  bucket: 'b',
  source: 'manual',
  options: { conflict: 'skip' },
  ...more,
});
const add = (i: AddFilesInput) => addFiles({ store, queue: engine }, i);

describe('addFiles', () => {
  it('queues fresh files, continues an unfinished one, reports a done unchanged one, and re-queues a failed one', async () => {
    await mkdir(path.join(dir, 't'), { recursive: true });
    await writeFile(path.join(dir, 't', 'a.txt'), 'a');
    await writeFile(path.join(dir, 't', 'b.txt'), 'bb');
    const first = await add(input(['t'], { prefix: 'p/' }));
    expect(first.queued).toHaveLength(2);
    expect(first.bytesQueued).toBe(3);
    expect(first.alreadyUploaded).toEqual([]);
    const [a, b] = first.queued as [number, number];
    expect(store.getTransfer(a)!.key).toBe('p/a.txt');
    // Each waits with its file's size (shown in the list before its upload starts).
    expect([store.getTransfer(a)!.size, store.getTransfer(b)!.size]).toEqual([1, 2]);

    // a done with the listed size and mtime; b failed
    const listed = await stat(path.join(dir, 't', 'a.txt'));
    store.updateTransfer(a, { state: 'done', size: 1, mtimeMs: Math.floor(listed.mtimeMs), etag: 'Fe' });
    store.updateTransfer(b, { state: 'failed', lastError: { code: 'x', message: 'x' } });
    const again = await add(input(['t'], { prefix: 'p/' }));
    expect(again.queued).toEqual([b]);
    expect(store.getTransfer(b)!.state).toBe('queued');
    expect(again.alreadyUploaded).toEqual([
      { id: a, path: path.join(dir, 't', 'a.txt'), key: 'p/a.txt', size: 1, etag: 'Fe' },
    ]);

    // overwrite: the done file is written again, as a new transfer
    const forced = await add(input(['t/a.txt'], { prefix: 'p/', options: { conflict: 'overwrite' } }));
    expect(forced.queued).toHaveLength(1);
    expect(forced.queued[0]).not.toBe(a);
  });

  it('refuses with a code: missing path, broken link, key collision, invalid key, --key with a folder', async () => {
    await mkdir(path.join(dir, 'x', 'd'), { recursive: true });
    await writeFile(path.join(dir, 'x', 'd', 'f.txt'), 'f');
    await writeFile(path.join(dir, 'f.txt'), 'f');
    await symlink(path.join(dir, 'gone'), path.join(dir, 'dangling'));
    const codeOf = async (i: AddFilesInput) => {
      try {
        await add(i);
        return 'no error';
      } catch (e) {
        expect(e).toBeInstanceOf(AddFilesError);
        return (e as AddFilesError).code;
      }
    };
    expect(await codeOf(input(['nope']))).toBe('path-not-found');
    expect(await codeOf(input(['dangling']))).toBe('broken-link');
    expect(await codeOf(input(['f.txt', 'x/d/f.txt']))).toBe('key-collision');
    expect(await codeOf(input(['f.txt'], { key: '' }))).toBe('key-invalid');
    expect(await codeOf(input(['f.txt'], { prefix: '/' }))).toBe('key-invalid');
    expect(await codeOf(input(['x'], { key: 'k' }))).toBe('key-needs-one-file');
    expect(await codeOf(input([]))).toBe('no-paths');
    expect(store.listTransfers(['queued'])).toEqual([]); // a refusal queues nothing
  });
});

describe('addFiles of many files', () => {
  it('queues them in slices with turns of the event loop between, so the app stays responsive', async () => {
    const count = ADD_SLICE_FILES * 3 + 7;
    await mkdir(path.join(dir, 'many'));
    for (let i = 0; i < count; i += 200)
      await Promise.all(
        Array.from({ length: Math.min(200, count - i) }, (_, j) =>
          writeFile(path.join(dir, 'many', `f${i + j}.txt`), 'x'),
        ),
      );
    // Each queued transfer's change event says which turn of the loop it came in.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    const perTurn = new Map<number, number>();
    const off = engine.onTransferChange(() => perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1));
    setImmediate(tick);
    const r = await add(input(['many']));
    ticking = false;
    off();
    expect(r.queued).toHaveLength(count);
    expect(new Set(r.queued).size).toBe(count);
    // One insert of every file in one turn held the loop: now each slice has a turn of its own.
    expect(perTurn.size).toBe(Math.ceil(count / ADD_SLICE_FILES));
    // A slice is at most 100 files: 500 held the loop 100–300 ms on a busy machine.
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(100);
  });
});
