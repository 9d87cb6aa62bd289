import Database from 'better-sqlite3';
import { mkdir, rename, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { WATCHER_BACKENDS } from '../../../src-main/sync/watcher';
import { SyncHarness } from './harness';

const write = (h: SyncHarness, rel: string, data: string) =>
  mkdir(path.dirname(path.join(h.folder, rel)), { recursive: true }).then(() =>
    writeFile(path.join(h.folder, rel), data),
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fmgr tasks the emulator received, by op name (read from its own SQLite file). */
function fmgrOps(h: SyncHarness): string[] {
  const db = new Database(path.join(h.emu.dataDir, 'emulator.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT op FROM emu_fmgr_tasks ORDER BY created_at').all() as Array<{ op: string }>).map(
      (r) => r.op,
    );
  } finally {
    db.close();
  }
}

/**
 * Missing rows stay claimable by a rename until the files still in the stability window at
 * start have settled, and a root found empty never deletes remote objects (the harness's
 * grace period is 1.5 s, housekeeping every 100 ms, stability window 300 ms).
 */
describe.each(WATCHER_BACKENDS)('missing rows held at start, %s backend', (backend) => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it('a file renamed while closed and touched since is moved on the service at the next start, not deleted and uploaded', async () => {
    const options = { localDelete: 'delete-remote' };
    await write(h, 'a/photo.jpg', 'jpeg bytes renamed while closed');
    await write(h, 'a/other.jpg', 'stays');
    await h.openRun({ backend, options, remote: true });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/a/other.jpg', 'up/a/photo.jpg']);
    await h.closeRun();

    await rename(path.join(h.folder, 'a/photo.jpg'), path.join(h.folder, 'a/renamed.jpg'));
    // An mtime ahead of the clock keeps it in the stability window at start however long a
    // busy machine takes to get there (a file first seen is ready at once only when its mtime is old).
    const ahead = new Date(Date.now() + 60_000);
    await utimes(path.join(h.folder, 'a/renamed.jpg'), ahead, ahead);
    await h.openRun({ backend, options, remote: true });
    h.events = [];
    const counts = await h.root!.start();
    expect(counts).toMatchObject({ missingFiles: 1, waitingFiles: 1, newFiles: 0 });
    await h.settle();
    await sleep(400); // housekeeping runs a few times after the file settled
    await h.settle();

    expect(h.takeUploads()).toEqual([]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/a/photo.jpg')).toBeUndefined();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/a/renamed.jpg')?.hash).toBe(
      etagOfBuffer(Buffer.from('jpeg bytes renamed while closed')),
    );
    expect(h.emu.objects.stat(h.emu.bucket, 'up/a/other.jpg')).toBeDefined();
    expect(fmgrOps(h)).toEqual(['move']);
    const done = h.events.flatMap((e) => (e.type === 'file-done' ? [`${e.status} ${e.relPath}`] : []));
    expect(done).toEqual(['moved a/renamed.jpg']);
    expect(h.repo!.getFile(h.root!.id, 'a/photo.jpg')).toBeUndefined();
    expect(h.repo!.getFile(h.root!.id, 'a/renamed.jpg')).toMatchObject({
      state: 'uploaded',
      remoteKey: 'up/a/renamed.jpg',
    });
  });

  it('a root found empty deletes nothing remotely, even after the grace period; a file appearing again ends the hold', async () => {
    const options = { localDelete: 'delete-remote' };
    await write(h, 'one.txt', '1');
    await write(h, 'two.txt', '2');
    await h.openRun({ backend, options, remote: true });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/one.txt', 'up/two.txt']);
    await h.closeRun();

    await unlink(path.join(h.folder, 'one.txt'));
    await unlink(path.join(h.folder, 'two.txt'));
    await h.openRun({ backend, options, remote: true });
    h.events = [];
    await h.root!.start();
    expect(h.events.some((e) => e.type === 'problem' && e.code === 'root-empty')).toBe(true);
    await sleep(2200); // longer than the 1.5 s grace period
    await h.settle();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/one.txt')).toBeDefined();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/two.txt')).toBeDefined();
    expect(fmgrOps(h)).toEqual([]);

    // Files again: one.txt's content under a new name is a move, two.txt is deleted.
    await write(h, 'back.txt', '1');
    const t0 = Date.now();
    while (h.emu.objects.stat(h.emu.bucket, 'up/two.txt') && Date.now() - t0 < 8000) await sleep(50);
    await h.settle();
    expect(h.takeUploads()).toEqual([]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/back.txt')).toBeDefined();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/one.txt')).toBeUndefined();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/two.txt')).toBeUndefined();
    expect(fmgrOps(h).sort()).toEqual(['delete', 'move']);
  });
});
