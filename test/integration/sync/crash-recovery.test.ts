import { stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { SyncHarness } from './harness';

/**
 * A crash between enqueueing a batch and recording its transfer ids (possible when the
 * queue is on another handle, or with a database written before the batch became one
 * transaction) leaves rows `queued` without a transfer id. The next start adopts the
 * unfinished transfer instead of uploading the file a second time.
 */
describe('root indexer: recovery of a batch cut by a crash', () => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it('a queued row without transfer id is matched to the unfinished transfer of the same file and key', async () => {
    const abs = path.join(h.folder, 'a.jpg');
    await writeFile(abs, 'content of a');
    await utimes(abs, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const root = await h.openRun({ backend: 'parcel', startEngine: false });
    const accountId = new AccountRepo(h.db!).byName('Local')!.id;
    // The crash state, written straight into SQLite: the row, and the transfer it never learned of.
    const [orphan] = h.engine!.enqueue([
      { accountId, bucket: h.emu.bucket, key: 'up/a.jpg', localPath: abs, source: 'watch' },
    ]) as [number];
    const { size, mtimeMs } = await import('node:fs/promises').then((f) => f.stat(abs));
    h.repo!.putFiles(root.id, [
      {
        relPath: 'a.jpg',
        size,
        mtimeMs: Math.trunc(mtimeMs),
        etag: null,
        remoteKey: null,
        state: 'queued',
        transferId: null,
        errorCode: null,
        errorMessage: null,
        missingSince: null,
      },
    ]);

    await root.start();
    await root.whenSettled();
    const transfers = h.db!.prepare('SELECT id FROM transfers WHERE local_path = ?').all(abs) as Array<{ id: number }>;
    expect(transfers.map((t) => t.id)).toEqual([orphan]);
    expect(h.repo!.getFile(root.id, 'a.jpg')).toMatchObject({ state: 'queued', transferId: orphan });

    // It uploads once when the engine runs.
    h.engine!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/a.jpg']);
    expect(h.repo!.getFile(root.id, 'a.jpg')?.state).toBe('uploaded');
  });

  it('a file rewritten before its queued upload ran is uploaded once, with the new bytes', async () => {
    // As after a crash: the row was queued for one version, the file was rewritten while the app was down,
    // and the upload (which reads the file when it starts) sends the new bytes. The row still held the
    // old version's size and mtime, so the check after the upload took the file for changed again.
    const abs = path.join(h.folder, 'a.jpg');
    const old = new Date(Date.now() - 120_000);
    await writeFile(abs, 'first version');
    await utimes(abs, old, old);
    const root = await h.openRun({ backend: 'parcel', startEngine: false });
    await root.start();
    await root.whenSettled();
    const queued = h.repo!.getFile(root.id, 'a.jpg');
    expect(queued).toMatchObject({ state: 'queued' });

    await writeFile(abs, 'the second, longer version of the file');
    const later = new Date(Date.now() - 60_000);
    await utimes(abs, later, later);
    const second = await stat(abs);
    await root.rescan();
    await root.whenSettled();
    h.engine!.start();
    await vi.waitFor(
      () => {
        const row = h.repo!.getFile(root.id, 'a.jpg');
        expect(row).toMatchObject({ state: 'uploaded', size: second.size, mtimeMs: second.mtimeMs });
      },
      { timeout: 45_000, interval: 100 },
    );
    await root.whenSettled();
    await h.settle();
    const transfers = h.db!.prepare('SELECT state FROM transfers WHERE local_path = ?').all(abs);
    expect(transfers).toEqual([{ state: 'done' }]);
    expect(h.takeUploads()).toEqual(['up/a.jpg']);
  });
});
