import { describe, expect, it } from 'vitest';
import {
  ChunkSizer,
  MIN_CHUNK_SIZE_BYTES,
  PlanError,
  chunkLimitBytes,
  planBlocks,
} from '../../../src-main/engine/plan';
import { DIRECT_IO_ALIGN } from '../../../src-main/base/direct-io';
import { BufferPool } from '../../../src-main/engine/buffers';
import { renamedKey } from '../../../src-main/engine/conflict';
import { ProgressTracker } from '../../../src-main/engine/progress';

const MiB = 1024 * 1024;

describe('planBlocks', () => {
  it('cuts full blocks and a remainder', () => {
    expect(planBlocks(10 * MiB, 4 * MiB)).toEqual([4 * MiB, 4 * MiB, 2 * MiB]);
    expect(planBlocks(8 * MiB, 8 * MiB)).toEqual([8 * MiB]);
    expect(planBlocks(1, 4 * MiB)).toEqual([1]);
    expect(planBlocks(0, 4 * MiB)).toEqual([]);
  });
  it('refuses block sizes that are not multiples of 4 MiB', () => {
    expect(() => planBlocks(1, 3 * MiB)).toThrow(PlanError);
    expect(() => planBlocks(1, 0)).toThrow(PlanError);
    expect(() => planBlocks(-1, 4 * MiB)).toThrow(PlanError);
  });
});

describe('ChunkSizer', () => {
  it('grows on fast chunks and shrinks on slow ones, within bounds', () => {
    const s = new ChunkSizer({ initialBytes: 1 * MiB, maxBytes: 4 * MiB, targetChunkMs: 1000 });
    s.observe(1 * MiB, 100);
    expect(s.chunkBytes).toBe(2 * MiB);
    s.observe(2 * MiB, 100);
    s.observe(4 * MiB, 100);
    expect(s.chunkBytes).toBe(4 * MiB);
    for (let i = 0; i < 10; i++) s.observe(s.chunkBytes, 10_000);
    expect(s.chunkBytes).toBe(MIN_CHUNK_SIZE_BYTES);
    s.observe(1000, 1); // a tail chunk says little
    expect(s.chunkBytes).toBe(MIN_CHUNK_SIZE_BYTES);
  });
  it("grows up to the transfer's block size, not a fixed 4 MiB, and never past it", () => {
    expect(chunkLimitBytes(16 * MiB)).toBe(16 * MiB);
    expect(chunkLimitBytes(16 * MiB, 8 * MiB)).toBe(8 * MiB);
    expect(chunkLimitBytes(4 * MiB, 64 * MiB)).toBe(4 * MiB);
    const s = new ChunkSizer({ initialBytes: 4 * MiB, maxBytes: chunkLimitBytes(16 * MiB), targetChunkMs: 1000 });
    for (let i = 0; i < 10; i++) s.observe(s.chunkBytes, 1);
    expect(s.chunkBytes).toBe(16 * MiB);
    const four = new ChunkSizer({ initialBytes: 4 * MiB, maxBytes: chunkLimitBytes(4 * MiB), targetChunkMs: 1000 });
    for (let i = 0; i < 10; i++) four.observe(four.chunkBytes, 1);
    expect(four.chunkBytes).toBe(4 * MiB);
  });
  it('buffers are reused per size and at most `keep` are kept idle', () => {
    const pool = new BufferPool(4 * MiB, 2);
    const a = pool.take(8 * MiB);
    expect(a.length).toBe(8 * MiB + DIRECT_IO_ALIGN); // room to start a direct read at an aligned address
    pool.give(a);
    expect(pool.take(8 * MiB)).toBe(a);
    expect(pool.take().length).toBe(4 * MiB + DIRECT_IO_ALIGN);
    const [x, y, z] = [pool.take(MiB), pool.take(MiB), pool.take(MiB)];
    pool.give(x);
    pool.give(y);
    pool.give(z); // over keep: dropped
    const again = [pool.take(MiB), pool.take(MiB), pool.take(MiB)];
    expect(again.filter((b) => b === x || b === y || b === z)).toHaveLength(2);
  });
  it('stays put when fixed', () => {
    const s = new ChunkSizer({ initialBytes: MiB, minBytes: MiB, maxBytes: MiB, fixed: true });
    s.observe(MiB, 1);
    expect(s.chunkBytes).toBe(MiB);
  });
});

describe('renamedKey', () => {
  it('adds the counter before the extension of the last segment', () => {
    expect(renamedKey('a/photo.jpg', 1)).toBe('a/photo (1).jpg');
    expect(renamedKey('a.dir/README', 2)).toBe('a.dir/README (2)');
    expect(renamedKey('.hidden', 1)).toBe('.hidden (1)');
  });
});

describe('ProgressTracker', () => {
  it('computes a moving-average speed and ETA', () => {
    const p = new ProgressTracker(0, 1000, { windowMs: 1000 });
    p.add(100, 0);
    p.add(100, 500);
    p.add(100, 1000);
    expect(p.speed(1000)).toBeCloseTo(200, 5); // 200 bytes over 1 s
    expect(p.etaSeconds(1000)).toBeCloseTo(3.5, 5);
    expect(p.speed(5000)).toBe(0); // idle
    expect(p.etaSeconds(5000)).toBeNull();
  });
  it('throttles to one update per interval unless forced', () => {
    const p = new ProgressTracker(0, 10, { minIntervalMs: 100 });
    expect(p.shouldEmit(0)).toBe(true);
    expect(p.shouldEmit(50)).toBe(false);
    expect(p.shouldEmit(60, true)).toBe(true);
    expect(p.shouldEmit(100)).toBe(false);
    expect(p.shouldEmit(160)).toBe(true);
  });
});
