import { describe, expect, it } from 'vitest';
import { StabilityTracker, stabilityVerdict, type FileObservation } from '../../../src-main/sync/stability';

const W = 1000;

describe('stabilityVerdict', () => {
  it.each([
    // prev, obs, now, ready
    ['first sight, old file', undefined, { size: 5, mtimeMs: 0 }, 5000, true],
    ['first sight, fresh file', undefined, { size: 5, mtimeMs: 4500 }, 5000, false],
    ['same, waited long enough', { size: 5, mtimeMs: 4500, sinceMs: 5000 }, { size: 5, mtimeMs: 4500 }, 6000, true],
    ['same, not long enough', { size: 5, mtimeMs: 4500, sinceMs: 5000 }, { size: 5, mtimeMs: 4500 }, 5999, false],
    ['grew', { size: 5, mtimeMs: 4500, sinceMs: 5000 }, { size: 9, mtimeMs: 4500 }, 7000, false],
    ['touched', { size: 5, mtimeMs: 4500, sinceMs: 5000 }, { size: 5, mtimeMs: 4600 }, 7000, false],
    [
      'changed long ago but seen changing now',
      { size: 5, mtimeMs: 0, sinceMs: 5000 },
      { size: 6, mtimeMs: 1 },
      9000,
      false,
    ],
  ])('%s', (_name, prev, obs, now, ready) => {
    expect(stabilityVerdict(prev, obs, now, W).ready).toBe(ready);
  });
  it('a zero window makes everything ready', () => {
    expect(stabilityVerdict({ size: 1, mtimeMs: 1, sinceMs: 1 }, { size: 2, mtimeMs: 2 }, 2, 0).ready).toBe(true);
  });
});

describe('StabilityTracker', () => {
  it('hands on a file only after it stops changing, and reports one that vanished', async () => {
    let clock = 10_000;
    const current = new Map<string, FileObservation>([
      ['grow.bin', { size: 1, mtimeMs: 10_000 }],
      ['gone.bin', { size: 1, mtimeMs: 10_000 }],
    ]);
    const ready: string[] = [];
    const gone: string[] = [];
    const t = new StabilityTracker({
      windowMs: 100,
      now: () => clock,
      stat: async (p) => current.get(p) ?? null,
      onReady: (files) => ready.push(...files.map((f) => f.relPath)),
      onGone: (p) => gone.push(p),
    });
    try {
      t.observe([...current].map(([relPath, obs]) => ({ relPath, obs })));
      expect(t.waiting).toBe(2);
      current.delete('gone.bin');
      // Keep growing for a while: never ready.
      for (let i = 2; i < 6; i++) {
        clock += 150;
        current.set('grow.bin', { size: i, mtimeMs: clock });
        await new Promise((r) => setTimeout(r, 60));
      }
      expect(ready).toEqual([]);
      expect(gone).toEqual(['gone.bin']);
      // Stop growing: ready after the window.
      clock += 150;
      await new Promise((r) => setTimeout(r, 80));
      clock += 150;
      await new Promise((r) => setTimeout(r, 80));
      expect(ready).toEqual(['grow.bin']);
      expect(t.waiting).toBe(0);
    } finally {
      t.close();
    }
  });
});

describe('StabilityTracker.observe', () => {
  it('decides once for a path listed twice in one call', () => {
    const ready: string[] = [];
    const t = new StabilityTracker({
      windowMs: 100,
      now: () => 10_000,
      stat: async () => null,
      onReady: (f) => ready.push(...f.map((x) => x.relPath)),
    });
    try {
      t.observe([
        { relPath: 'a', obs: { size: 1, mtimeMs: 0 } },
        { relPath: 'a', obs: { size: 1, mtimeMs: 0 } },
      ]);
      expect(ready).toEqual(['a']);
      expect(t.waiting).toBe(0);
    } finally {
      t.close();
    }
  });
});
