import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { SYNC_FILE_STATES, SyncRepo, type SyncFileRecord } from '../../../src-main/store/sync-repo';

const row = (relPath: string, extra: Partial<SyncFileRecord> = {}): SyncFileRecord => ({
  relPath,
  size: 10,
  mtimeMs: 1700000000123.456,
  etag: null,
  remoteKey: null,
  state: 'queued',
  transferId: null,
  errorCode: null,
  errorMessage: null,
  missingSince: null,
  ...extra,
});

let dir: string;
let db: Db;
let repo: SyncRepo;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-syncrepo-'));
  db = openAppDatabase(path.join(dir, 'app.db'));
  repo = new SyncRepo(db, () => 42);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('SyncRepo', () => {
  it('adds, finds, updates and removes roots; a second root on the same path is refused', () => {
    const r = repo.addRoot({
      path: '/data/photos',
      accountId: 1,
      bucket: 'b',
      prefix: 'p/',
      options: { stabilityMs: 5 },
    });
    expect(r).toMatchObject({
      path: '/data/photos',
      bucket: 'b',
      prefix: 'p/',
      options: { stabilityMs: 5 },
      paused: false,
      unavailableReason: null,
      createdAt: 42,
    });
    expect(() => repo.addRoot({ path: '/data/photos', accountId: 1, bucket: 'b', prefix: '', options: {} })).toThrow(
      expect.objectContaining({ code: 'root-exists' }),
    );
    expect(repo.updateRoot(r.id, { paused: true, unavailableReason: 'gone' })).toMatchObject({
      paused: true,
      unavailableReason: 'gone',
    });
    // why it is unavailable, by its catalog code and params too (read back after a restart)
    expect(
      repo.updateRoot(r.id, {
        unavailableReason: 'the folder /data/photos is not there',
        unavailableCode: 'root-missing',
        unavailableParams: { path: '/data/photos' },
      }),
    ).toMatchObject({ unavailableCode: 'root-missing', unavailableParams: { path: '/data/photos' } });
    db.prepare(`UPDATE watch_roots SET unavailable_params_json = '["x"]' WHERE id = ?`).run(r.id);
    expect(() => repo.getRoot(r.id)).toThrow(expect.objectContaining({ code: 'bad-row' }));
    expect(
      repo.updateRoot(r.id, { unavailableReason: null, unavailableCode: null, unavailableParams: null }),
    ).toMatchObject({
      unavailableReason: null,
      unavailableCode: null,
      unavailableParams: null,
    });
    expect(repo.findRootByPath('/data/photos')?.id).toBe(r.id);
    expect(() => repo.updateRoot(999, { paused: true })).toThrow(expect.objectContaining({ code: 'no-such-root' }));
    repo.putFiles(r.id, [row('a')]);
    repo.removeRoot(r.id);
    expect(repo.listRoots()).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM sync_files').get()).toEqual({ n: 0 });
  });

  it('keeps the file index: exact mtimes, lookups by transfer, missing by size, folders, counts', () => {
    const r = repo.addRoot({ path: '/x', accountId: 1, bucket: 'b', prefix: '', options: {} });
    repo.putFiles(r.id, [
      row('a/1.txt', { transferId: 7 }),
      row('a/2.txt', { state: 'uploaded', etag: 'E', remoteKey: 'k' }),
      row('a0.txt', { state: 'missing', missingSince: 5, etag: 'E2', size: 99 }),
      row('b/3.txt', { state: 'missing', missingSince: 50, size: 99 }),
    ]);
    const idx = repo.loadIndex(r.id);
    expect(idx.size).toBe(4);
    expect(idx.get('a/1.txt')?.mtimeMs).toBe(1700000000123.456);
    expect(repo.findByTransfer(7)).toMatchObject({ rootId: r.id, file: { relPath: 'a/1.txt' } });
    expect(repo.findByTransfer(8)).toBeUndefined();
    expect(
      repo
        .missingWithSize(r.id, 99)
        .map((f) => f.relPath)
        .sort(),
    ).toEqual(['a0.txt', 'b/3.txt']);
    expect(repo.missingSince(r.id, 10).map((f) => f.relPath)).toEqual(['a0.txt']);
    expect(
      repo
        .filesUnder(r.id, 'a')
        .map((f) => f.relPath)
        .sort(),
    ).toEqual(['a/1.txt', 'a/2.txt']);
    expect(repo.countByState(r.id)).toMatchObject({ queued: 1, uploaded: 1, missing: 2, failed: 0 });
    repo.putFiles(r.id, [row('a/1.txt', { state: 'uploaded', etag: 'Z' })]);
    expect(repo.getFile(r.id, 'a/1.txt')).toMatchObject({ state: 'uploaded', etag: 'Z', transferId: null });
    repo.deleteFiles(r.id, ['a/1.txt', 'nope']);
    expect(repo.getFile(r.id, 'a/1.txt')).toBeUndefined();
  });

  it("gives a full scan its summary of the index (the root's rows only, exact mtimes) and marks rows missing", () => {
    const r = repo.addRoot({ path: '/x', accountId: 1, bucket: 'b', prefix: '', options: {} });
    const other = repo.addRoot({ path: '/y', accountId: 1, bucket: 'b', prefix: '', options: {} });
    repo.putFiles(other.id, [row('o', { state: 'failed' })]);
    repo.putFiles(r.id, [
      row('a/1.txt', { transferId: 7 }),
      row('a/2.txt', { state: 'uploaded', etag: 'E', remoteKey: 'k', size: 99 }),
      row('b.txt', { state: 'skipped', mtimeMs: 5 }),
    ]);
    const sum = repo.loadIndexSummary(r.id);
    expect([...sum.slots.keys()].sort()).toEqual(['a/1.txt', 'a/2.txt', 'b.txt']);
    const at = (p: string) => {
      const i = sum.slots.get(p)!;
      return { size: sum.size[i], mtimeMs: sum.mtimeMs[i], state: SYNC_FILE_STATES[sum.state[i]!] };
    };
    expect(at('a/1.txt')).toEqual({ size: 10, mtimeMs: 1700000000123.456, state: 'queued' });
    expect(at('a/2.txt')).toEqual({ size: 99, mtimeMs: 1700000000123.456, state: 'uploaded' });
    expect(at('b.txt')).toEqual({ size: 10, mtimeMs: 5, state: 'skipped' });
    expect(repo.loadIndexSummary(12345).slots.size).toBe(0);

    repo.markMissing(r.id, ['a/2.txt', 'nope'], 77);
    expect(repo.getFile(r.id, 'a/2.txt')).toEqual(
      row('a/2.txt', { state: 'missing', missingSince: 77, etag: 'E', remoteKey: 'k', size: 99 }),
    );
    expect(repo.getFile(r.id, 'nope')).toBeUndefined();
    expect(repo.countByState(r.id)).toMatchObject({ queued: 1, missing: 1, skipped: 1, uploaded: 0 });
  });

  it('counts by state through upserts, state changes, deletes and a removed root (counts kept by triggers)', () => {
    const r = repo.addRoot({ path: '/x', accountId: 1, bucket: 'b', prefix: '', options: {} });
    const other = repo.addRoot({ path: '/y', accountId: 1, bucket: 'b', prefix: '', options: {} });
    repo.putFiles(other.id, [row('o', { state: 'failed' })]);
    repo.putFiles(r.id, [row('1'), row('2'), row('3', { state: 'rejected', errorCode: 'bad' })]);
    expect(repo.countByState(r.id)).toMatchObject({ queued: 2, rejected: 1, uploaded: 0, failed: 0 });
    repo.putFiles(r.id, [row('1', { state: 'uploaded' }), row('1', { state: 'uploaded', etag: 'E' }), row('2')]);
    expect(repo.countByState(r.id)).toMatchObject({ queued: 1, uploaded: 1, rejected: 1 });
    repo.deleteFiles(r.id, ['2', '3', 'never-there']);
    expect(repo.countByState(r.id)).toEqual({ queued: 0, uploaded: 1, failed: 0, skipped: 0, rejected: 0, missing: 0 });
    expect(repo.filesInState(r.id, 'uploaded', 10).map((f) => f.relPath)).toEqual(['1']);
    repo.removeRoot(r.id);
    expect(repo.countByState(r.id)).toMatchObject({ uploaded: 0 });
    expect(repo.countByState(other.id)).toMatchObject({ failed: 1, queued: 0 });
    const again = repo.addRoot({ path: '/x', accountId: 1, bucket: 'b', prefix: '', options: {} });
    repo.putFiles(again.id, [row('1')]);
    expect(repo.countByState(again.id)).toMatchObject({ queued: 1, uploaded: 0 });
  });

  it('refuses a row with an unknown state instead of guessing', () => {
    const r = repo.addRoot({ path: '/y', accountId: 1, bucket: 'b', prefix: '', options: {} });
    db.pragma('ignore_check_constraints = ON');
    db.prepare(
      "INSERT INTO sync_files (root_id, rel_path, size, mtime_ms, state, updated_at) VALUES (?, 'x', 1, 1, 'weird', 1)",
    ).run(r.id);
    expect(() => repo.loadIndex(r.id)).toThrow(/unknown state weird/);
    expect(() => repo.loadIndexSummary(r.id)).toThrow(/unknown state weird/);
  });
});
