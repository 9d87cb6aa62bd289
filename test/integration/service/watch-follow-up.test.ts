import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreWorld, isType } from './harness';

const MP4_BYTES = Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'), Buffer.alloc(4096, 7)]);

describe('watch roots through the core', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('a video dropped in a root with VCA on is uploaded, gets a VCA job, and its labels are stored', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const root = await core.watch.addRoot({
      folder: w.folder,
      accountId: core.localAccountId!,
      bucket: 'local',
      prefix: 'cam/',
      options: { stabilityMs: 200, vcaForVideos: true },
    });
    await writeFile(path.join(w.folder, 'clip.mp4'), MP4_BYTES);
    await writeFile(path.join(w.folder, 'notes.txt'), 'not a video');

    const done = await w.waitFor(
      isType('watch', (e) => e.event.type === 'file-done' && e.event.relPath === 'clip.mp4'),
    );
    expect(done.event).toMatchObject({ status: 'uploaded', key: 'cam/clip.mp4', vcaRequested: true });
    const job = await w.waitFor(isType('vca-job-changed', (e) => e.job.tracking === 'done'));
    expect(job.job.origin).toBe('watch');
    expect(job.job.bucket).toBe('local');
    expect(job.job.sourceUrl).toBe(`${core.embedded!.emulator.downloadBaseUrl}/local/cam/clip.mp4`);
    expect(job.job.code).toBe(3);
    expect(job.job.results.length).toBeGreaterThan(0);
    // Stored: the tracker reads the same labels back from SQLite.
    const stored = core.vca.get(job.job.id)!;
    expect(stored.results).toEqual(job.job.results);
    expect(stored.results.flatMap((g) => g.labels).every((l) => l.confidence >= 0 && l.confidence <= 1)).toBe(true);

    // The text file got no job: exactly one job exists.
    await w.waitFor(isType('watch', (e) => e.event.type === 'file-done' && e.event.relPath === 'notes.txt'));
    expect(core.vca.list().map((j) => j.sourceUrl)).toEqual([job.job.sourceUrl]);
    expect(root.id).toBeGreaterThan(0);
  });

  it('local delete with delete-remote on → a tracked Fmgr delete task that succeeds; rename → a tracked move', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const emu = core.embedded!.emulator;
    await writeFile(path.join(w.folder, 'a.txt'), 'to be deleted');
    await writeFile(path.join(w.folder, 'b.txt'), 'to be renamed');
    await core.watch.addRoot({
      folder: w.folder,
      accountId: core.localAccountId!,
      bucket: 'local',
      options: { stabilityMs: 200, localDelete: 'delete-remote' },
    });
    await w.waitFor(
      isType(
        'watch',
        (e) => e.event.type === 'file-done' && e.event.relPath === 'a.txt' && e.event.status === 'uploaded',
      ),
    );
    await w.waitFor(
      isType(
        'watch',
        (e) => e.event.type === 'file-done' && e.event.relPath === 'b.txt' && e.event.status === 'uploaded',
      ),
    );
    expect(await emu.objects.stat('local', 'a.txt')).toBeDefined();

    await rm(path.join(w.folder, 'a.txt'));
    const deleted = await w.waitFor(
      isType(
        'watch',
        (e) => e.event.type === 'file-done' && e.event.relPath === 'a.txt' && e.event.status !== 'uploaded',
      ),
    );
    expect(deleted.event).toMatchObject({ status: 'deleted' });
    const delTask = core.fmgr.list().find((t) => t.op === 'delete');
    expect(delTask).toBeDefined();
    expect(delTask).toMatchObject({ origin: 'submitted', tracking: 'done', accountId: core.localAccountId });
    expect(delTask!.items.map((i) => i.code)).toEqual([3]);
    expect(core.fmgr.snapshots(delTask!.id).length).toBeGreaterThan(0);
    expect(await emu.objects.stat('local', 'a.txt')).toBeUndefined();
    // Its states reached the event stream.
    expect(
      w.events.some((e) => e.type === 'fmgr-task-changed' && e.task.id === delTask!.id && e.task.tracking === 'done'),
    ).toBe(true);

    await rename(path.join(w.folder, 'b.txt'), path.join(w.folder, 'c.txt'));
    const moved = await w.waitFor(isType('watch', (e) => e.event.type === 'file-done' && e.event.relPath === 'c.txt'));
    expect(moved.event).toMatchObject({ status: 'moved', from: 'b.txt', key: 'c.txt' });
    const moveTask = core.fmgr.list().find((t) => t.op === 'move');
    expect(moveTask).toMatchObject({ tracking: 'done' });
    expect(await emu.objects.stat('local', 'b.txt')).toBeUndefined();
    expect((await emu.objects.stat('local', 'c.txt'))?.size).toBe('to be renamed'.length);
  });

  it('a failed delete (object already gone) rejects with the item error and the task shows it', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const err = await core.remoteOps
      .deleteObject({ accountId: core.localAccountId!, bucket: 'local', key: 'never-uploaded.txt' })
      .then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
    expect(err?.code).toBe('fmgr-failed');
    const t = core.fmgr.list().find((x) => x.op === 'delete')!;
    expect(t.tracking).toBe('done');
    expect(t.items[0]?.error).toBeTruthy();
    expect(err?.message).toContain(t.items[0]!.error!);
  });
});
