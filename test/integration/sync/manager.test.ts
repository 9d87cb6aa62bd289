import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountRepo } from '../../../src-main/store/account-repo';
import type { WatchManager } from '../../../src-main/sync/watch-manager';
import { SyncHarness } from './harness';

describe('watch manager: plan, refusals, pause', () => {
  let h: SyncHarness;
  let m: WatchManager | undefined;
  beforeEach(async () => {
    h = await SyncHarness.create();
    await h.openRun({ backend: 'parcel' });
    // The manager adds its own roots: drop the harness's (never started) root of the folder.
    await h.root!.close();
    h.repo!.removeRoot(h.root!.id);
  });
  afterEach(async () => {
    await m?.close();
    m = undefined;
    await h.dispose();
  });

  const manager = () => {
    m = h.watchManager();
    return m;
  };
  const accountId = () => new AccountRepo(h.db!).byName('Local')!.id;
  const put = async (rel: string, data: string | Buffer) => {
    const abs = path.join(h.folder, 'photos', rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, data);
    await utimes(abs, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  };

  it('plans before doing: counts and bytes of new, ignored, rejected, and an estimate; then adding uploads exactly that', async () => {
    await put('a.jpg', Buffer.alloc(1000));
    await put('b/c.jpg', Buffer.alloc(2000));
    await put('Thumbs.db', 'x');
    await put('bad\u0002.jpg', 'x');
    const mgr = manager();
    const { plan } = await mgr.plan({ folder: path.join(h.folder, 'photos'), prefix: 'cam/' });
    expect(plan).toMatchObject({
      newFiles: 2,
      newBytes: 3000,
      ignoredFiles: 1,
      rejectedFiles: 1,
      filesToUpload: 2,
      bytesToUpload: 3000,
      unchangedFiles: 0,
    });
    expect(plan.estimatedSeconds).toBeGreaterThan(0);
    expect(h.repo!.listRoots().map((r) => r.path)).not.toContain(path.join(h.folder, 'photos'));

    const root = await mgr.addRoot({
      folder: path.join(h.folder, 'photos'),
      accountId: accountId(),
      bucket: h.emu.bucket,
      prefix: 'cam/',
    });
    await root.whenSettled();
    await h.engine!.whenIdle();
    expect(h.takeUploads()).toEqual(['cam/a.jpg', 'cam/b/c.jpg']);
    // The plan of the same folder now says: nothing to do.
    const again = await mgr.plan({ folder: path.join(h.folder, 'photos'), prefix: 'cam/' });
    expect(again.plan).toMatchObject({ newFiles: 0, unchangedFiles: 2, filesToUpload: 0, estimatedSeconds: null });
  });

  it('refuses a root inside another root and the data folder, with a clear message', async () => {
    await mkdir(path.join(h.folder, 'photos/inner'), { recursive: true });
    const mgr = manager();
    await mgr.addRoot({ folder: path.join(h.folder, 'photos'), accountId: accountId(), bucket: h.emu.bucket });
    await expect(
      mgr.addRoot({ folder: path.join(h.folder, 'photos/inner'), accountId: accountId(), bucket: h.emu.bucket }),
    ).rejects.toMatchObject({ code: 'root-inside-root' });
    await expect(mgr.plan({ folder: path.join(path.dirname(h.dbFile)) })).rejects.toThrow(/data folder/);
    await expect(
      mgr.addRoot({ folder: path.join(h.folder, 'nope'), accountId: accountId(), bucket: h.emu.bucket }),
    ).rejects.toThrow(/does not exist/);
  });

  it('a paused root queues nothing until resumed, and stays paused across a restart', async () => {
    await mkdir(path.join(h.folder, 'photos'), { recursive: true });
    const mgr = manager();
    const root = await mgr.addRoot({
      folder: path.join(h.folder, 'photos'),
      accountId: accountId(),
      bucket: h.emu.bucket,
      options: { stabilityMs: 100 },
    });
    await mgr.pauseAll();
    expect(root.state).toBe('paused');
    await put('while-paused.jpg', 'p');
    await new Promise((r) => setTimeout(r, 400));
    expect(h.takeUploads()).toEqual([]);
    expect(h.repo!.getRoot(root.id)?.paused).toBe(true);
    await mgr.close();
    // A new manager over the same database: still paused.
    const mgr2 = manager();
    await mgr2.startAll();
    const again = mgr2.get(root.id)!;
    expect(again.state).toBe('paused');
    expect(again.stateReason).toEqual({ code: 'root-paused', message: 'paused by the user', params: {} });
    await mgr2.resumeRoot(root.id);
    expect(again.state).toBe('watching');
    await again.whenSettled();
    await h.engine!.whenIdle();
    expect(h.takeUploads()).toEqual(['while-paused.jpg']);
  });

  it('overlapping adds and removes of one folder leave no root running that nothing owns; close() waits for them', async () => {
    await put('a.jpg', 'a');
    const mgr = manager();
    const input = { folder: path.join(h.folder, 'photos'), accountId: accountId(), bucket: h.emu.bucket };
    const first = mgr.addRoot(input);
    const second = mgr.addRoot(input);
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1.id).toBe(r2.id);
    expect(mgr.list()).toHaveLength(1);
    const removed = mgr.removeRoot(r2.id);
    const third = mgr.addRoot(input);
    const closing = mgr.close();
    const late = mgr.addRoot(input);
    await removed;
    const r3 = await third;
    await closing;
    await expect(late).rejects.toThrow(/closing/);
    // Every root ever started is closed: none keeps a watcher (which would keep the process alive).
    for (const r of [r1, r2, r3]) expect(r.state).toBe('closed');
    m = undefined;
  });
});
