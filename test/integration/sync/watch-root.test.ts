import { appendFile, mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { WATCHER_BACKENDS } from '../../../src-main/sync/watcher';
import { SyncHarness } from './harness';

/** The harness's default stability window. */
const STABILITY_MS = 300;

const write = (h: SyncHarness, rel: string, data: string | Buffer) =>
  mkdir(path.dirname(path.join(h.folder, rel)), { recursive: true }).then(() =>
    writeFile(path.join(h.folder, rel), data),
  );
/** Sets a file's mtime in the past so it is stable at first sight. */
const old = async (h: SyncHarness, rel: string) =>
  import('node:fs/promises').then((f) =>
    f.utimes(path.join(h.folder, rel), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)),
  );

describe.each(WATCHER_BACKENDS)('watch root over the real engine and emulator, %s backend', (backend) => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it('uploads files that appear once they settle, a growing file only when it stops growing', async () => {
    await write(h, 'before.txt', 'was there first');
    await old(h, 'before.txt');
    // The stability rule reads this clock and only the test moves it, so how fast the machine
    // runs decides nothing: every content of grow.bin is seen by the window before the clock
    // moves on, and lasts less than the window on that clock.
    let clock = Date.now();
    let clockReads = 0;
    await h.openRun({
      backend,
      now: () => {
        clockReads++;
        return clock;
      },
    });
    const first = await h.root!.start();
    expect(first?.newFiles).toBe(1);
    await write(h, 'sub/new.txt', 'new file');
    const growPath = path.join(h.folder, 'grow.bin');
    const growQueued = () =>
      h.events.flatMap((e) => (e.type === 'queued' ? e.files.filter((f) => f.relPath === 'grow.bin') : []));
    const LIVELY = { timeout: 10_000, interval: 10 };
    /** Waits until the window holds grow.bin at this size; a hand-off of it fails the test. */
    const windowHolds = async (size: number) => {
      await vi.waitFor(() => {
        if (growQueued().length === 0) expect(h.root!.waitingFile('grow.bin')?.size).toBe(size);
      }, LIVELY);
      expect(growQueued()).toEqual([]);
    };
    /** Moves the clock, then waits until the window has read it (its next check decided with it). */
    const advance = async (ms: number) => {
      clock += ms;
      const before = clockReads;
      await vi.waitFor(() => expect(clockReads).toBeGreaterThan(before), LIVELY);
    };
    let content = 'start;';
    await writeFile(growPath, content);
    for (let i = 0; i < 8; i++) {
      await windowHolds(content.length);
      await advance(STABILITY_MS - 1);
      expect(growQueued()).toEqual([]);
      content += `chunk ${i};`;
      await appendFile(growPath, `chunk ${i};`);
    }
    await windowHolds(content.length);
    // It stopped growing: one ms short of the window it still waits, at the window it goes.
    await advance(STABILITY_MS - 1);
    expect(growQueued()).toEqual([]);
    expect(h.root!.waitingFile('grow.bin')?.size).toBe(content.length);
    await advance(1);
    await vi.waitFor(() => expect(growQueued().map((f) => f.size)).toEqual([content.length]), LIVELY);
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/before.txt', 'up/grow.bin', 'up/sub/new.txt']);
    expect(growQueued()).toHaveLength(1);
    const finalGrow = Buffer.from(content);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/grow.bin')?.hash).toBe(etagOfBuffer(finalGrow));
    const rows = h.repo!.loadIndex(h.root!.id);
    expect(rows.get('grow.bin')).toMatchObject({
      state: 'uploaded',
      etag: etagOfBuffer(finalGrow),
      remoteKey: 'up/grow.bin',
    });
  });

  it('a restart with no change uploads nothing; a modified file alone is uploaded again', async () => {
    for (let i = 0; i < 5; i++) await write(h, `d/f${i}.txt`, `file ${i}`);
    await h.openRun({ backend });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toHaveLength(5);
    await h.closeRun();

    await h.openRun({ backend });
    const again = await h.root!.start();
    await h.settle();
    expect(again).toMatchObject({ newFiles: 0, changedFiles: 0, unchangedFiles: 5 });
    expect(h.takeUploads()).toEqual([]);

    await writeFile(path.join(h.folder, 'd/f2.txt'), 'file 2, edited');
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/d/f2.txt']);
    await h.closeRun();

    // Changed while the app was not running: found by the reconciliation scan.
    await writeFile(path.join(h.folder, 'd/f3.txt'), 'file 3, edited offline');
    await old(h, 'd/f3.txt');
    await h.openRun({ backend });
    const third = await h.root!.start();
    expect(third).toMatchObject({ changedFiles: 1, unchangedFiles: 4 });
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/d/f3.txt']);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/d/f3.txt')?.hash).toBe(
      etagOfBuffer(Buffer.from('file 3, edited offline')),
    );
  });

  it('a restart while transfers are still queued continues them: each file uploaded once, no new transfer', async () => {
    for (let i = 0; i < 4; i++) await write(h, `q/${i}.mov`, `video ${i}`);
    for (let i = 0; i < 4; i++) await old(h, `q/${i}.mov`);
    await h.openRun({ backend, startEngine: false, options: { vcaForVideos: true } });
    expect(await h.root!.start()).toMatchObject({ newFiles: 4 });
    const firstIds = [...h.repo!.loadIndex(h.root!.id).values()].map((r) => r.transferId).sort();
    expect(h.takeUploads()).toEqual([]);
    // Queued, not started: each shows its file's size from the scan (not "0 B").
    expect(firstIds.map((id) => h.engine!.get(id!)?.size)).toEqual(Array(4).fill('video 0'.length));
    await h.closeRun();

    await h.openRun({ backend, options: { vcaForVideos: true } });
    // The engine resumes the queued transfers as soon as it starts, so by the time the scan
    // classifies a file its transfer may already be done: in flight or unchanged, never new.
    const resumed = await h.root!.start();
    expect(resumed).toMatchObject({ newFiles: 0, changedFiles: 0 });
    expect(resumed!.inFlightFiles + resumed!.unchangedFiles).toBe(4);
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/q/0.mov', 'up/q/1.mov', 'up/q/2.mov', 'up/q/3.mov']);
    const rows = [...h.repo!.loadIndex(h.root!.id).values()];
    expect(rows.map((r) => r.transferId).sort()).toEqual(firstIds);
    expect(rows.every((r) => r.state === 'uploaded')).toBe(true);
    const done = h.events.filter((e) => e.type === 'file-done');
    expect(done).toHaveLength(4);
    expect(done.every((e) => e.type === 'file-done' && e.vcaRequested === true)).toBe(true);
  });

  it('a file that changes during its upload ends with its final content on the service', async () => {
    const MiB = 1024 * 1024;
    await h.openRun({ backend });
    h.engine!.setBandwidthLimit(4 * MiB);
    await h.root!.start();
    const abs = path.join(h.folder, 'changing.bin');
    await writeFile(abs, Buffer.alloc(8 * MiB, 1));
    const t0 = Date.now();
    while (!h.transfers.some((t) => t.key === 'up/changing.bin' && t.state === 'uploading') && Date.now() - t0 < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    const final = Buffer.alloc(8 * MiB + 5, 2);
    await writeFile(abs, final);
    h.engine!.setBandwidthLimit(null);
    await h.settle();
    await new Promise((r) => setTimeout(r, 500));
    await h.settle();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/changing.bin')?.hash).toBe(etagOfBuffer(final));
    expect(h.repo!.getFile(h.root!.id, 'changing.bin')).toMatchObject({
      state: 'uploaded',
      size: final.length,
      etag: etagOfBuffer(final),
    });
  });

  it('a rename costs no upload: a server-side copy while deletes are kept, a move when they propagate', async () => {
    await write(h, 'a/photo.jpg', 'jpeg bytes 1');
    await write(h, 'b/clip.mov', 'movie bytes 2');
    await h.openRun({ backend, options: { localDelete: 'delete-remote' }, remote: true });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/a/photo.jpg', 'up/b/clip.mov']);

    await rename(path.join(h.folder, 'a/photo.jpg'), path.join(h.folder, 'a/renamed.jpg'));
    await h.settle();
    await new Promise((r) => setTimeout(r, 300));
    await h.settle();
    expect(h.takeUploads()).toEqual([]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/a/renamed.jpg')?.hash).toBe(etagOfBuffer(Buffer.from('jpeg bytes 1')));
    expect(h.emu.objects.stat(h.emu.bucket, 'up/a/photo.jpg')).toBeUndefined();
    expect(h.events.some((e) => e.type === 'file-done' && e.status === 'moved' && e.relPath === 'a/renamed.jpg')).toBe(
      true,
    );
    await h.closeRun();

    // Renamed while not running, deletes kept: a copy, the old key stays.
    await h.repo; // (same database file)
    await rename(path.join(h.folder, 'b/clip.mov'), path.join(h.folder, 'b/clip-renamed.mov'));
    await h.openRun({ backend, options: { localDelete: 'keep' }, remote: true });
    const counts = await h.root!.start();
    expect(counts).toMatchObject({ renamedFiles: 1, newFiles: 0, missingFiles: 1 });
    await h.settle();
    expect(h.takeUploads()).toEqual([]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/b/clip-renamed.mov')).toBeDefined();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/b/clip.mov')).toBeDefined();
  });

  it('applies ignore rules, include-only and hidden files', async () => {
    await h.openRun({
      backend,
      options: { ignore: ['build/', '*.log'], includeOnly: ['**/*.txt', '*.txt', '**/*.tmp'] },
    });
    await h.root!.start();
    await write(h, 'keep.txt', 'k');
    await write(h, 'deep/keep2.txt', 'k2');
    await write(h, 'x.tmp', 'default ignore');
    await write(h, '.DS_Store', 'mac');
    await write(h, '.hidden/secret.txt', 'hidden folder');
    await write(h, 'build/out.txt', 'user ignore folder');
    await write(h, 'app.log', 'user ignore');
    await write(h, 'photo.jpg', 'not included');
    await h.settle();
    await new Promise((r) => setTimeout(r, 300));
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/deep/keep2.txt', 'up/keep.txt']);
  });

  it('follows links when asked, reports a link loop and still uploads the rest', async () => {
    const outside = path.join(path.dirname(h.folder), 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'linked.txt'), 'via link');
    await write(h, 'real/file.txt', 'real');
    await symlink(outside, path.join(h.folder, 'ext'));
    await symlink(h.folder, path.join(h.folder, 'real/loop'));
    await h.openRun({ backend, options: { symlinks: 'follow' } });
    const counts = await h.root!.start();
    expect(counts?.problems.map((p) => [p.relPath, p.code])).toEqual([['real/loop', 'symlink-loop']]);
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/ext/linked.txt', 'up/real/file.txt']);
    // A file added later inside the linked folder is seen through its own watcher.
    await writeFile(path.join(outside, 'later.txt'), 'later');
    await h.settle();
    await new Promise((r) => setTimeout(r, 300));
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/ext/later.txt']);
  });

  it('reports names the service cannot take, with the reason', async () => {
    await write(h, 'ok.txt', 'fine');
    await write(h, 'bad\u0001name.txt', 'control char');
    const long = `${'x'.repeat(200)}/${'y'.repeat(200)}/${'z'.repeat(200)}/${'w'.repeat(200)}.txt`;
    await write(h, long, 'too long');
    for (const f of ['ok.txt', 'bad\u0001name.txt', long]) await old(h, f);
    await h.openRun({ backend });
    const counts = await h.root!.start();
    await h.settle();
    expect(counts?.rejected.map((r) => r.code).sort()).toEqual(['control-character', 'too-long']);
    expect(h.takeUploads()).toEqual(['up/ok.txt']);
    expect(h.events.filter((e) => e.type === 'rejected')).toHaveLength(2);
  });

  it('a root that disappears pauses with a reason and resumes when it returns', async () => {
    await write(h, 'one.txt', '1');
    await h.openRun({ backend });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/one.txt']);
    const moved = `${h.folder}-away`;
    await rename(h.folder, moved);
    const t0 = Date.now();
    while (h.root!.state !== 'unavailable' && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 50));
    expect(h.root!.state).toBe('unavailable');
    expect(h.root!.reason).toMatch(/not there/);
    expect(h.repo!.getRoot(h.root!.id)?.unavailableReason).toMatch(/not there/);
    expect(h.root!.stateReason).toMatchObject({ code: 'root-missing', params: { path: h.folder } });
    await writeFile(path.join(moved, 'two.txt'), '2');
    await old({ folder: moved } as SyncHarness, 'two.txt');
    await rename(moved, h.folder);
    while (h.root!.state !== 'watching' && Date.now() - t0 < 10000) await new Promise((r) => setTimeout(r, 50));
    expect(h.root!.state).toBe('watching');
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/two.txt']);
    // one.txt was not lost nor deleted remotely while the folder was away.
    expect(h.repo!.getFile(h.root!.id, 'one.txt')?.state).toBe('uploaded');
  });

  it('a local delete deletes the remote object only when turned on', async () => {
    await write(h, 'keep/a.txt', 'a');
    await write(h, 'del/b.txt', 'b');
    await h.openRun({ backend, options: { localDelete: 'delete-remote' }, remote: true });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toHaveLength(2);
    await unlink(path.join(h.folder, 'del/b.txt'));
    const t0 = Date.now();
    while (
      (h.emu.objects.stat(h.emu.bucket, 'up/del/b.txt') || h.repo!.getFile(h.root!.id, 'del/b.txt')) &&
      Date.now() - t0 < 8000
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(h.emu.objects.stat(h.emu.bucket, 'up/del/b.txt')).toBeUndefined();
    expect(h.repo!.getFile(h.root!.id, 'del/b.txt')).toBeUndefined();
    await h.closeRun();
    // Default policy: the remote object stays.
    await rm(path.join(h.folder, 'keep'), { recursive: true });
    await h.openRun({ backend, options: { localDelete: 'keep' }, remote: true });
    await h.root!.start();
    await h.settle();
    expect(h.emu.objects.stat(h.emu.bucket, 'up/keep/a.txt')).toBeDefined();
    expect(h.repo!.getFile(h.root!.id, 'keep/a.txt')).toBeUndefined();
  });
});
