import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { startWalCheckpointer } from '../../../src-main/store/wal-checkpoint';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-wal-'));
  db = openAppDatabase(path.join(dir, 'app.db'));
});
afterEach(() => {
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WAL checkpointer', () => {
  it('the main connection never checkpoints; a thread of its own keeps the log from growing', async () => {
    const errors: string[] = [];
    let waiter: (() => void) | undefined;
    const cp = startWalCheckpointer(db, {
      everyMs: 20,
      onError: (m) => errors.push(m),
      // A checkpoint that copied the whole log: the next transaction starts the log over.
      onCheckpoint: (r) => {
        if (r.busy === 0 && r.log > 0 && r.checkpointed === r.log) waiter?.();
      },
    });
    const fullCheckpoint = () => new Promise<void>((resolve) => (waiter = resolve));
    // The commit that takes the log over 1,000 pages no longer checkpoints (and fsyncs) on this thread.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    db.exec('CREATE TABLE pad (id INTEGER PRIMARY KEY, v BLOB)');
    const ins = db.prepare('INSERT INTO pad (v) VALUES (?)');
    const row = Buffer.alloc(4000, 1);
    // 32 MiB through the log in 64 transactions of 0.5 MiB, each once the thread checkpointed the one before.
    for (let t = 0; t < 64; t++) {
      const checkpointed = fullCheckpoint();
      db.transaction(() => {
        for (let i = 0; i < 128; i++) ins.run(row);
      })();
      await checkpointed;
    }
    const walBytes = statSync(path.join(dir, 'app.db-wal')).size;
    // Without a checkpoint the log would hold all 32 MiB; the thread's let it start over (a few transactions long at most).
    expect(walBytes).toBeLessThan(8 * 1024 * 1024);
    await cp.stop();
    expect(errors).toEqual([]);
    // Stopped: the main connection checkpoints by itself again.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(db.prepare('SELECT count(*) AS n FROM pad').get()).toEqual({ n: 64 * 128 });
  });

  it('under steady writes the log still starts over, so it stays short (it grew without bound before)', async () => {
    const errors: string[] = [];
    let restarts = 0;
    const cp = startWalCheckpointer(db, {
      everyMs: 20,
      // 4 MiB instead of the app's 64, so 32 MiB of writes show the log starting over.
      longLogPages: 1000,
      onError: (m) => errors.push(m),
      onCheckpoint: (r) => {
        if (r.restarted) restarts++;
      },
    });
    db.exec('CREATE TABLE pad (id INTEGER PRIMARY KEY, v BLOB)');
    const ins = db.prepare('INSERT INTO pad (v) VALUES (?)');
    const row = Buffer.alloc(4000, 1);
    const wal = path.join(dir, 'app.db-wal');
    let largest = 0;
    // 32 MiB through the log in 2,048 transactions of 16 KiB, one every millisecond or so: the
    // app never waits for the checkpointer, so there is rarely a moment with every frame copied.
    for (let t = 0; t < 2048; t++) {
      db.transaction(() => {
        for (let i = 0; i < 4; i++) ins.run(row);
      })();
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (t % 64 === 63) largest = Math.max(largest, statSync(wal).size);
    }
    await cp.stop();
    expect(errors).toEqual([]);
    expect(restarts).toBeGreaterThan(0);
    // A PASSIVE checkpoint alone let the log hold all 32 MiB (52 MB with the frames' headers).
    expect(largest).toBeLessThan(16 * 1024 * 1024);
    expect(db.prepare('SELECT count(*) AS n FROM pad').get()).toEqual({ n: 2048 * 4 });
  }, 60_000);

  it('reads the stretch of the log the app writes next, so a page the kernel dropped is back before the app writes over it', async (ctx) => {
    if (!existsSync('/usr/bin/fincore'))
      ctx.skip("util-linux's fincore is missing: it tells which pages of the log the kernel holds");
    db.exec('CREATE TABLE pad (id INTEGER PRIMARY KEY, v BLOB)');
    const ins = db.prepare('INSERT INTO pad (v) VALUES (?)');
    const row = Buffer.alloc(4000, 1);
    // 8 MiB through the log with no checkpoint, then one that copies it all and starts it
    // over at the next write: the log's end is back near its start, with old bytes after it.
    db.transaction(() => {
      for (let i = 0; i < 2048; i++) ins.run(row);
    })();
    expect(db.pragma('wal_checkpoint(RESTART)')).toEqual([expect.objectContaining({ busy: 0 })]);
    ins.run(row);
    const wal = path.join(dir, 'app.db-wal');
    const size = statSync(wal).size;
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    const held = () =>
      Number(execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', wal], { encoding: 'utf8' }).trim());
    // The kernel drops the log's pages (written to disk first; then dd with count=0 and
    // nocache: posix_fadvise DONTNEED on the whole file). No checkpointer runs yet.
    const fd = openSync(wal, 'r');
    fsyncSync(fd);
    closeSync(fd);
    execFileSync('dd', [`if=${wal}`, 'iflag=nocache', 'count=0', 'status=none']);
    expect(held()).toBeLessThan(size / 4);
    let tick: (() => void) | undefined;
    const cp = startWalCheckpointer(db, { everyMs: 50, onCheckpoint: () => tick?.() });
    const nextTick = () => new Promise<void>((resolve) => (tick = resolve));
    await nextTick();
    await nextTick();
    // The app wrote nothing meanwhile; the thread read what lies past the log's end back in.
    expect(held()).toBeGreaterThan(size / 2);
    await cp.stop();
  }, 60_000);
});
