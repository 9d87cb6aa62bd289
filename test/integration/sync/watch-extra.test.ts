import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { WATCHER_BACKENDS } from '../../../src-main/sync/watcher';
import { SyncHarness } from './harness';

/**
 * Watched folders, the cases a review found untested: manual transfers of files inside a
 * root, hidden files on and off, and the conflict policy `skip` on a root. Real emulator,
 * real engine, real SQLite, real temp folders (see harness.ts).
 */

const write = (h: SyncHarness, rel: string, data: string | Buffer) =>
  mkdir(path.dirname(path.join(h.folder, rel)), { recursive: true }).then(() =>
    writeFile(path.join(h.folder, rel), data),
  );
/** Sets a file's mtime in the past so it is stable at first sight. */
const old = (h: SyncHarness, rel: string) =>
  utimes(path.join(h.folder, rel), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
const accountIdOf = (h: SyncHarness): number => new AccountRepo(h.db!).byName('Local')!.id;
/** Settles, waits a little more for late watcher events, settles again. */
const settleFully = async (h: SyncHarness) => {
  await h.settle();
  await new Promise((r) => setTimeout(r, 300));
  await h.settle();
};
/** Transfers of one local file, oldest first, as the transfers table has them. */
const transfersOf = (h: SyncHarness, abs: string) =>
  h.db!.prepare('SELECT id, source, state FROM transfers WHERE local_path = ? ORDER BY id').all(abs) as Array<{
    id: number;
    source: string;
    state: string;
  }>;

describe.each(WATCHER_BACKENDS)('watch roots, further cases, %s backend', (backend) => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  // Contract (README, root-indexer.ts onTransfer): manual transfers never touch the index;
  // only transfers with source 'watch' that an index row refers to are recorded. The root
  // uploads a file by its own rules (new, changed, failed), nothing more because of a manual one.
  it('a manual transfer of a file inside the root leaves the index untouched and causes no upload by the root', async () => {
    await write(h, 'a.txt', 'watched content');
    await write(h, 'notes.log', 'ignored by the root');
    await old(h, 'a.txt');
    await old(h, 'notes.log');
    await h.openRun({ backend, options: { ignore: ['*.log'] } });
    await h.root!.start();
    await h.settle();
    expect(h.takeUploads()).toEqual(['up/a.txt']);
    const before = h.repo!.loadIndex(h.root!.id);
    expect([...before.keys()]).toEqual(['a.txt']);
    const rowBefore = before.get('a.txt');
    expect(rowBefore).toMatchObject({ state: 'uploaded', remoteKey: 'up/a.txt' });
    const eventsBefore = h.events.length;

    // Manual transfers of an indexed file and of a file the root ignores, both inside the root.
    const absA = path.join(h.folder, 'a.txt');
    const absLog = path.join(h.folder, 'notes.log');
    const manualIds = h.engine!.enqueue([
      {
        accountId: accountIdOf(h),
        bucket: h.emu.bucket,
        key: 'manual/a.txt',
        localPath: absA,
        source: 'manual',
        options: { conflict: 'overwrite' },
      },
      {
        accountId: accountIdOf(h),
        bucket: h.emu.bucket,
        key: 'manual/notes.log',
        localPath: absLog,
        source: 'manual',
        options: { conflict: 'overwrite' },
      },
    ]);
    await settleFully(h);
    expect(h.takeUploads()).toEqual(['manual/a.txt', 'manual/notes.log']);
    for (const id of manualIds) expect(h.engine!.get(id)?.state).toBe('done');
    expect(h.emu.objects.stat(h.emu.bucket, 'manual/a.txt')?.hash).toBe(etagOfBuffer(Buffer.from('watched content')));

    // The index: the same single row, field for field; no row for the ignored file.
    const after = h.repo!.loadIndex(h.root!.id);
    expect([...after.keys()]).toEqual(['a.txt']);
    expect(after.get('a.txt')).toEqual(rowBefore);
    // The root said nothing about them and queued nothing.
    expect(h.events.slice(eventsBefore)).toEqual([]);
    expect(transfersOf(h, absA).map((t) => t.source)).toEqual(['watch', 'manual']);
    expect(transfersOf(h, absLog).map((t) => t.source)).toEqual(['manual']);

    // A reconciliation afterwards finds nothing to do either.
    expect(await h.root!.rescan()).toMatchObject({
      newFiles: 0,
      changedFiles: 0,
      retryFiles: 0,
      unchangedFiles: 1,
      ignoredFiles: 1,
    });
    await h.settle();
    expect(h.takeUploads()).toEqual([]);
    expect(h.repo!.loadIndex(h.root!.id).get('a.txt')).toEqual(rowBefore);
  });

  it("a manual transfer that finishes while the root's own transfer of the file is queued is not taken for it", async () => {
    await write(h, 'c.txt', 'content of c');
    await old(h, 'c.txt');
    // One file at a time, the manual transfer first (higher priority): it ends while the row is still `queued`.
    await h.openRun({ backend, startEngine: false, maxFiles: 1 });
    expect(await h.root!.start()).toMatchObject({ newFiles: 1 });
    const own = h.repo!.getFile(h.root!.id, 'c.txt')!.transferId!;
    expect(own).toBeGreaterThan(0);
    const abs = path.join(h.folder, 'c.txt');
    const [manual] = h.engine!.enqueue([
      {
        accountId: accountIdOf(h),
        bucket: h.emu.bucket,
        key: 'manual/c.txt',
        localPath: abs,
        source: 'manual',
        priority: 10,
        options: { conflict: 'overwrite' },
      },
    ]) as [number];
    h.engine!.start();
    await settleFully(h);
    const doneOrder = h.transfers.filter((t) => t.state === 'done').map((t) => t.id);
    expect(doneOrder).toEqual([manual, own]);
    expect(h.takeUploads()).toEqual(['manual/c.txt', 'up/c.txt']);
    expect(h.repo!.getFile(h.root!.id, 'c.txt')).toMatchObject({
      state: 'uploaded',
      transferId: own,
      remoteKey: 'up/c.txt',
      etag: etagOfBuffer(Buffer.from('content of c')),
    });
    const done = h.events.filter((e) => e.type === 'file-done');
    expect(done.map((e) => e.type === 'file-done' && [e.relPath, e.key, e.status])).toEqual([
      ['c.txt', 'up/c.txt', 'uploaded'],
    ]);
    expect(transfersOf(h, abs).map((t) => t.source)).toEqual(['watch', 'manual']);
  });

  // Contract (root-indexer.ts queueBatch, sync-repo findUnfinishedTransfer): a row left
  // `queued` without a transfer id adopts only an unfinished *watch* transfer of the same
  // file and key; an unfinished manual one is not the root's, so the root queues its own.
  it('a row cut by a crash does not adopt an unfinished manual transfer of the same file and key', async () => {
    const abs = path.join(h.folder, 'b.jpg');
    await writeFile(abs, 'content of b');
    await old(h, 'b.jpg');
    const root = await h.openRun({ backend, startEngine: false });
    const [manual] = h.engine!.enqueue([
      {
        accountId: accountIdOf(h),
        bucket: h.emu.bucket,
        key: 'up/b.jpg',
        localPath: abs,
        source: 'manual',
        options: { conflict: 'overwrite' },
      },
    ]) as [number];
    const { size, mtimeMs } = await stat(abs);
    h.repo!.putFiles(root.id, [
      {
        relPath: 'b.jpg',
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
    const rows = transfersOf(h, abs);
    expect(rows.map((t) => t.source)).toEqual(['manual', 'watch']);
    const own = rows[1]!.id;
    expect(h.repo!.getFile(root.id, 'b.jpg')).toMatchObject({ state: 'queued', transferId: own });

    h.engine!.start();
    await h.settle();
    expect(h.engine!.get(manual)?.state).toBe('done');
    expect(h.engine!.get(own)?.state).toBe('done');
    // The row records its own transfer only; no third transfer.
    expect(h.repo!.getFile(root.id, 'b.jpg')).toMatchObject({
      state: 'uploaded',
      transferId: own,
      remoteKey: 'up/b.jpg',
      etag: etagOfBuffer(Buffer.from('content of b')),
    });
    expect(transfersOf(h, abs)).toHaveLength(2);
    expect(h.events.filter((e) => e.type === 'file-done').map((e) => e.type === 'file-done' && e.relPath)).toEqual([
      'b.jpg',
    ]);
  });

  it.each([
    {
      includeHidden: true,
      expected: [
        'up/.dir/inside.txt',
        'up/.dir/later.txt',
        'up/.hidden.txt',
        'up/.later.txt',
        'up/plain.txt',
        'up/plain2.txt',
      ],
    },
    { includeHidden: false, expected: ['up/plain.txt', 'up/plain2.txt'] },
  ])(
    'hidden files and folders with includeHidden $includeHidden: found by the scan and by the watcher',
    async ({ includeHidden, expected }) => {
      await write(h, '.hidden.txt', 'dot file');
      await write(h, '.dir/inside.txt', 'in a dot folder');
      await write(h, 'plain.txt', 'plain');
      for (const f of ['.hidden.txt', '.dir/inside.txt', 'plain.txt']) await old(h, f);
      // includeHidden: false is the default; the off case passes no option at all.
      await h.openRun({ backend, options: includeHidden ? { includeHidden: true } : {} });
      const counts = await h.root!.start();
      expect(counts).toMatchObject({ newFiles: includeHidden ? 3 : 1 });
      await h.settle();
      // Appearing while watched: a new dot file, a file in the existing dot folder, a plain one.
      await write(h, '.later.txt', 'later dot file');
      await write(h, '.dir/later.txt', 'later in dot folder');
      await write(h, 'plain2.txt', 'plain later');
      await settleFully(h);
      expect(h.takeUploads()).toEqual(expected);
      for (const key of expected) expect(h.emu.objects.stat(h.emu.bucket, key)).toBeDefined();
      expect(
        h.emu.objects
          .list(h.emu.bucket, 'up/')
          .map((o) => o.key)
          .sort(),
      ).toEqual(expected);
      expect([...h.repo!.loadIndex(h.root!.id).keys()].sort()).toEqual(
        expected.map((k) => k.slice('up/'.length)).sort(),
      );
    },
  );

  // Issue 20 point 5: a full disk under the database during a full scan's writes (not the
  // watcher's) holds the scan like the other disk-full cases: a problem says so, the root
  // stays starting and scans again every ~2 s; once there is room every file is queued.
  it('a full scan that meets a full disk is held with a scan-disk-full problem and goes on once there is room', async () => {
    const names = Array.from({ length: 120 }, (_, i) => `held/a-rather-long-file-name-to-fill-index-pages-${i}.txt`);
    for (const n of names) {
      await write(h, n, `content of ${n}`);
      await old(h, n);
    }
    await h.openRun({ backend });
    // No page may be added to the database: its writes fail with SQLITE_FULL, as on a full disk.
    h.db!.pragma(`max_page_count = ${h.db!.pragma('page_count', { simple: true }) as number}`);
    expect(await h.root!.start()).toBeUndefined();
    expect(h.root!.state).toBe('starting');
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'problem', code: 'scan-disk-full', relPath: '' }));
    // Still held a retry later.
    await new Promise((r) => setTimeout(r, 2500));
    expect(h.root!.state).toBe('starting');

    h.db!.pragma('max_page_count = 1073741823');
    const t0 = Date.now();
    while (h.root!.state !== 'watching' && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 50));
    expect(h.root!.state).toBe('watching');
    await settleFully(h);
    expect(h.takeUploads()).toEqual(names.map((n) => `up/${n}`).sort());

    // A rescan of a watching root that meets a full disk is held the same way.
    h.db!.pragma(`max_page_count = ${h.db!.pragma('page_count', { simple: true }) as number}`);
    const more = names.map((n) => n.replace('held/', 'more/'));
    for (const n of more) {
      await write(h, n, `content of ${n}`);
      await old(h, n);
    }
    expect(await h.root!.rescan()).toBeUndefined();
    expect(h.root!.state).toBe('watching');
    h.db!.pragma('max_page_count = 1073741823');
    await new Promise((r) => setTimeout(r, 2500));
    await settleFully(h);
    expect(h.takeUploads()).toEqual(more.map((n) => `up/${n}`).sort());
  });

  // Issue 20: a watched file whose exact bytes are already under its key (uploaded by
  // another database, or a killed run whose upload landed before its record) is uploaded,
  // not skipped: the engine asks what is stored there and finds this file.
  it('a watched file whose bytes are already under its key ends uploaded (done, verified, "already there"), not skipped', async () => {
    const same = Buffer.from('the same bytes on both sides');
    h.emu.objects.putBuffer(h.emu.bucket, 'up/same.txt', same, {});
    const putTime = h.emu.objects.stat(h.emu.bucket, 'up/same.txt')!.putTime;
    await h.openRun({ backend, options: { conflict: 'skip' } });
    await h.root!.start();
    await write(h, 'same.txt', same.toString());
    await settleFully(h);

    const done = h.events.filter((e) => e.type === 'file-done');
    expect(done.map((e) => e.type === 'file-done' && [e.relPath, e.status])).toEqual([['same.txt', 'uploaded']]);
    expect(h.repo!.getFile(h.root!.id, 'same.txt')).toMatchObject({ state: 'uploaded', remoteKey: 'up/same.txt' });
    const t = h
      .db!.prepare('SELECT state, etag, remote_hash, warning FROM transfers WHERE local_path = ?')
      .all(path.join(h.folder, 'same.txt'));
    expect(t).toEqual([
      {
        state: 'done',
        etag: etagOfBuffer(same),
        remote_hash: etagOfBuffer(same),
        warning: expect.stringMatching(/^already there: /) as unknown,
      },
    ]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/same.txt')!.putTime).toBe(putTime);
  });

  // Contract (options.ts conflict, engine file-upload.ts, reconcile.ts): with `skip`, a key
  // that already exists is left as it is; the row ends `skipped` with the file's size and
  // mtime, and a skipped row with unchanged content is `unchanged` to every later scan.
  it('conflict policy skip: an existing key is left alone, the file ends skipped and a rescan does not queue it again', async () => {
    const existing = Buffer.from('already on the service');
    h.emu.objects.putBuffer(h.emu.bucket, 'up/taken.txt', existing, {});
    await h.openRun({ backend, options: { conflict: 'skip' } });
    await h.root!.start();
    await write(h, 'taken.txt', 'local content, different');
    await write(h, 'free.txt', 'nobody has this key');
    await settleFully(h);

    const done = h.events.filter((e) => e.type === 'file-done');
    expect(done.map((e) => e.type === 'file-done' && [e.relPath, e.status]).sort()).toEqual([
      ['free.txt', 'uploaded'],
      ['taken.txt', 'skipped'],
    ]);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/taken.txt')?.hash).toBe(etagOfBuffer(existing));
    expect(h.emu.objects.stat(h.emu.bucket, 'up/free.txt')?.hash).toBe(
      etagOfBuffer(Buffer.from('nobody has this key')),
    );
    const local = await stat(path.join(h.folder, 'taken.txt'));
    expect(h.repo!.getFile(h.root!.id, 'taken.txt')).toMatchObject({
      state: 'skipped',
      remoteKey: 'up/taken.txt',
      size: local.size,
      mtimeMs: local.mtimeMs,
    });
    expect(transfersOf(h, path.join(h.folder, 'taken.txt')).map((t) => t.state)).toEqual(['skipped']);

    // A rescan, and a restart, queue nothing: the skipped file is unchanged.
    const eventsBefore = h.events.length;
    expect(await h.root!.rescan()).toMatchObject({
      newFiles: 0,
      changedFiles: 0,
      retryFiles: 0,
      inFlightFiles: 0,
      unchangedFiles: 2,
    });
    await h.settle();
    await h.closeRun();
    await h.openRun({ backend, options: { conflict: 'skip' } });
    expect(await h.root!.start()).toMatchObject({
      newFiles: 0,
      changedFiles: 0,
      retryFiles: 0,
      inFlightFiles: 0,
      unchangedFiles: 2,
    });
    await h.settle();
    expect(h.events.slice(eventsBefore).filter((e) => e.type === 'queued' || e.type === 'file-done')).toEqual([]);
    expect(transfersOf(h, path.join(h.folder, 'taken.txt'))).toHaveLength(1);
    expect(h.emu.objects.stat(h.emu.bucket, 'up/taken.txt')?.hash).toBe(etagOfBuffer(existing));
    expect(await readFile(path.join(h.folder, 'taken.txt'), 'utf8')).toBe('local content, different');
  });
});
