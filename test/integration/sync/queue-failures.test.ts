import Database from 'better-sqlite3';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUnexpectedErrorHandler } from '../../../src-main/common/unexpected-error';
import type { WatchRootEvent } from '../../../src-main/sync/events';
import { SyncHarness } from './harness';

/**
 * Files that stopped changing are queued even when the database refuses a write: another
 * connection holding it is waited out (the one backoff), a row it refuses costs only its
 * own file, a closed database at quit is no problem to report. Real SQLite file, real temp
 * folder, real failures (a second connection's write lock, a trigger).
 */

const write = async (h: SyncHarness, rel: string, data: string, past = false) => {
  const abs = path.join(h.folder, rel);
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, data);
  if (past) await utimes(abs, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
};
const queuedPaths = (h: SyncHarness) =>
  (h.db!.prepare('SELECT local_path FROM transfers ORDER BY local_path').all() as Array<{ local_path: string }>).map(
    (r) => path.relative(h.folder, r.local_path),
  );
const problems = (h: SyncHarness, code: string) =>
  h.events.filter((e): e is Extract<WatchRootEvent, { type: 'problem' }> => e.type === 'problem' && e.code === code);
async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
/** A trigger on this connection only (TEMP): the database refuses the row of one path. */
const refuseRowOf = (h: SyncHarness, relPath: string) =>
  h.db!.exec(`CREATE TEMP TRIGGER refuse_one BEFORE INSERT ON main.sync_files WHEN NEW.rel_path = '${relPath}'
    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);

describe('queueing stable files when the database refuses', () => {
  let h: SyncHarness;
  let unexpected: Array<{ error: unknown; context?: string }>;
  let restore: () => void;
  beforeEach(async () => {
    h = await SyncHarness.create();
    unexpected = [];
    restore = setUnexpectedErrorHandler((error, context) => unexpected.push({ error, context }));
  });
  afterEach(async () => {
    restore();
    await h.dispose();
  });

  it('another connection holding the write lock: the batch waits with a problem, then every file is queued once', async () => {
    await h.openRun({ backend: 'parcel', startEngine: false });
    await h.root!.start();
    // The app's connection gives up after 100 ms instead of 5 s, so each attempt holds the loop briefly.
    h.db!.pragma('busy_timeout = 100');
    const other = new Database(h.dbFile);
    other.exec('BEGIN IMMEDIATE');
    const names = ['a.txt', 'b.txt', 'c/d.txt'];
    try {
      for (const n of names) await write(h, n, `content of ${n}`);
      await until('a queue-busy problem', () => problems(h, 'queue-busy').length > 0);
      expect(problems(h, 'queue-busy')[0]!.message).toMatch(/SQLITE_BUSY.*quit the other Blocklift programs/);
      expect(queuedPaths(h)).toEqual([]);
      // Held through a retry or more (500 ms, then 1 s, ...): said once.
      await new Promise((r) => setTimeout(r, 1600));
      expect(problems(h, 'queue-busy')).toHaveLength(1);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await until('the held files queued', () => queuedPaths(h).length === names.length);
    await h.root!.whenSettled();
    expect(queuedPaths(h)).toEqual([...names].sort());
    const index = h.repo!.loadIndex(h.root!.id);
    expect(names.map((n) => index.get(n)?.state)).toEqual(['queued', 'queued', 'queued']);
    expect(unexpected).toEqual([]);
  });

  it('another connection holding the write lock during the first scan: the scan waits with a problem, then completes', async () => {
    const names = ['one.txt', 'two.txt'];
    for (const n of names) await write(h, n, `content of ${n}`, true);
    await h.openRun({ backend: 'parcel', startEngine: false });
    h.db!.pragma('busy_timeout = 100');
    const other = new Database(h.dbFile);
    other.exec('BEGIN IMMEDIATE');
    try {
      expect(await h.root!.start()).toBeUndefined();
      expect(h.root!.state).toBe('starting');
      expect(problems(h, 'scan-queue-busy').map((p) => p.message)).toEqual([
        expect.stringMatching(
          /^The scan of this folder waits: another connection holds the queue database \(SQLITE_BUSY/,
        ),
      ]);
      await new Promise((r) => setTimeout(r, 1600)); // a retry or two, still held: said once
      expect(h.root!.state).toBe('starting');
      expect(problems(h, 'scan-queue-busy')).toHaveLength(1);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await until('the root watching', () => h.root!.state === 'watching');
    expect(queuedPaths(h)).toEqual(['one.txt', 'two.txt']);
    expect(unexpected).toEqual([]);
  });

  it('a row the database refuses, seen by the watcher: the other files of its batch are queued, that file is a problem; saved again, it goes in', async () => {
    await h.openRun({ backend: 'parcel', startEngine: false });
    await h.root!.start();
    refuseRowOf(h, 'bad.txt');
    const names = ['one.txt', 'bad.txt', 'two.txt', 'three.txt'];
    // One stability window: the four are admitted as one batch.
    await Promise.all(names.map((n) => write(h, n, `content of ${n}`)));
    await until('the good files queued', () => queuedPaths(h).length === 3);
    await h.root!.whenSettled();
    expect(queuedPaths(h)).toEqual(['one.txt', 'three.txt', 'two.txt']);
    const refused = problems(h, 'file-not-queued');
    expect(refused.map((p) => p.relPath)).toEqual(['bad.txt']);
    expect(refused[0]!.message).toMatch(/SQLITE_CONSTRAINT_TRIGGER.*Save or rename the file to try again/);
    expect(h.repo!.getFile(h.root!.id, 'bad.txt')).toBeUndefined();
    expect(unexpected).toEqual([]);

    // What the problem says to do, once the cause is gone: save the file again.
    h.db!.exec('DROP TRIGGER temp.refuse_one');
    await write(h, 'bad.txt', 'content of bad.txt, saved again');
    await until('bad.txt queued', () => queuedPaths(h).includes('bad.txt'));
    expect(queuedPaths(h)).toEqual(['bad.txt', 'one.txt', 'three.txt', 'two.txt']);
  });

  it('a row the database refuses in a full scan: the scan queues the others and completes', async () => {
    const names = ['one.txt', 'bad.txt', 'two.txt'];
    for (const n of names) await write(h, n, `content of ${n}`, true);
    await h.openRun({ backend: 'parcel', startEngine: false });
    refuseRowOf(h, 'bad.txt');
    const counts = await h.root!.start();
    expect(counts).toBeDefined();
    expect(h.root!.state).toBe('watching');
    expect(queuedPaths(h)).toEqual(['one.txt', 'two.txt']);
    expect(problems(h, 'file-not-queued').map((p) => p.relPath)).toEqual(['bad.txt']);
  });

  it('the database closed before the root (a quit out of order): nothing reported, nothing thrown', async () => {
    await h.openRun({ backend: 'parcel', startEngine: false });
    await h.root!.start();
    await write(h, 'late.txt', 'written as the app quits');
    await until('late.txt in the stability window', () => h.root!.waitingFiles === 1);
    h.engine!.close();
    h.db!.close();
    await until('the window to hand it over', () => h.root!.waitingFiles === 0);
    await h.root!.whenSettled();
    await h.root!.close();
    expect(h.events.filter((e) => e.type === 'problem')).toEqual([]);
    expect(unexpected).toEqual([]);
  });
});
