import { describe, expect, it } from 'vitest';
import { DISK_FULL_FREE_BYTES, DiskFullProblems } from '../../../src-main/service/disk-full-problems';
import type { CoreProblem } from '../../../src-main/shared/events';

const progress = (id: number, reason?: string) => ({
  id,
  bytesDone: 0,
  size: 10,
  speed: 0,
  etaSeconds: null,
  // The engine's action: a disk-full hold says so as data, whatever its words.
  ...(reason
    ? { retry: { reason, nextAttemptAt: 0, action: reason.startsWith('disk-full') ? 'disk-full' : 'retry' } }
    : {}),
});

describe('DiskFullProblems', () => {
  it('names the database in a disk-full problem, at most once per interval, only for disk-full holds', () => {
    let t = 1_000;
    const seen: CoreProblem[] = [];
    const d = new DiskFullProblems(
      '/data/blocklift.db',
      (p) => seen.push(p),
      () => t,
      30_000,
    );
    d.progress(progress(1));
    d.progress(progress(1, 'bput 503: busy → retry'));
    expect(seen).toEqual([]);
    d.progress(progress(7, 'disk-full: the disk holding the queue database is full → retry'));
    expect(seen).toEqual([
      {
        code: 'disk-full',
        message: 'The disk holding /data/blocklift.db is full; free space and the upload continues.',
        params: { path: '/data/blocklift.db' },
        transferId: 7,
      },
    ]);
    t += 2_000;
    d.progress(progress(8, 'disk-full: again → retry'));
    expect(seen).toHaveLength(1);
    t += 30_000;
    d.progress(progress(8, 'disk-full: again → retry'));
    expect(seen).toHaveLength(2);
    expect(seen[1]!.transferId).toBe(8);
  });

  it('says the disk is full when its free space is under the bound, with no write failing first', () => {
    let t = 1_000;
    const seen: CoreProblem[] = [];
    const d = new DiskFullProblems(
      '/data/blocklift.db',
      (p) => seen.push(p),
      () => t,
      30_000,
    );
    d.freeSpace(DISK_FULL_FREE_BYTES);
    expect(seen).toEqual([]);
    d.freeSpace(DISK_FULL_FREE_BYTES - 1);
    expect(seen).toEqual([
      {
        code: 'disk-full',
        message: 'The disk holding /data/blocklift.db is full; free space and the upload continues.',
        params: { path: '/data/blocklift.db' },
      },
    ]);
    // One interval for both sources: a hold right after the check says nothing new.
    t += 5_000;
    d.progress(progress(3, 'disk-full: again → retry'));
    d.freeSpace(0);
    expect(seen).toHaveLength(1);
    t += 30_000;
    d.freeSpace(0);
    expect(seen).toHaveLength(2);
  });
});
