import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BATCH_BUFFER_BYTES } from '../../../src-main/emulator/direct-io';
import { HashPool, type HandedBuffer } from '../../../src-main/emulator/hash-pool';
import { ETAG_UNIT_BYTES } from '../../../src-main/protocol/etag';

/** Copies `data` into buffers of at most `batch` bytes (7 bytes in) and hands them to `update` (which moves them). */
function feed(update: (b: HandedBuffer, length: number) => void, data: Buffer, batch: number): ArrayBuffer[] {
  const handed: ArrayBuffer[] = [];
  for (let pos = 0; pos < data.length; pos += batch) {
    const part = data.subarray(pos, pos + batch);
    const buffer = new ArrayBuffer(batch + 7);
    Buffer.from(buffer, 7).set(part);
    handed.push(buffer);
    update({ buffer, offset: 7, aligned: false }, part.length);
  }
  return handed;
}

describe('HashPool', () => {
  const pools: HashPool[] = [];
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });

  it('hashes interleaved bodies on its workers: each job gets its own MD5 and CRC-32', async () => {
    const pool = new HashPool(2);
    pools.push(pool);
    const bodies = [randomBytes(3 * BATCH_BUFFER_BYTES + 5), randomBytes(1000), Buffer.alloc(0), randomBytes(70_000)];
    const jobs = bodies.map(() => pool.begin());
    // Interleave the hand-overs of all jobs, as concurrent chunk requests do.
    const handed = bodies.map((b, i) => feed((h, n) => jobs[i]!.update(h, n), b, BATCH_BUFFER_BYTES));
    // Moved, not copied: the sender's buffers are detached.
    expect(handed.flat().map((a) => a.byteLength)).toEqual(handed.flat().map(() => 0));
    const got = await Promise.all(jobs.map((j) => j.digest()));
    expect(got.map(({ buffers: _, ...h }) => h)).toEqual(
      bodies.map((b) => ({ md5Hex: createHash('md5').update(b).digest('hex'), crc32: crc32(b), units: null })),
    );
    // Each job gives back the buffers it was handed, in order, bytes intact.
    got.forEach((g, i) => {
      expect(g.buffers.map((h) => [h.offset, h.aligned])).toEqual(handed[i]!.map(() => [7, false]));
      const back = Buffer.concat(g.buffers.map((h) => Buffer.from(h.buffer, 7)));
      expect(back.subarray(0, bodies[i]!.length).equals(bodies[i]!)).toBe(true);
    });
    // A dropped job answers nothing and leaves the others alone.
    const dropped = pool.begin();
    dropped.update({ buffer: new ArrayBuffer(4), offset: 0, aligned: false }, 4);
    dropped.drop();
    const after = pool.begin();
    feed((h, n) => after.update(h, n), Buffer.from('abc'), 3);
    expect(await after.digest()).toMatchObject({
      md5Hex: createHash('md5').update('abc').digest('hex'),
      crc32: crc32('abc'),
      units: null,
    });
  });

  it("also gives the etag's unit SHA1s of whole units, and of the last partial one when the body ends its block", async () => {
    const pool = new HashPool(2);
    pools.push(pool);
    const body = randomBytes(2 * ETAG_UNIT_BYTES + 12_345);
    const sha1 = (b: Buffer) => createHash('sha1').update(b).digest();
    const unit = (i: number) => sha1(body.subarray(i * ETAG_UNIT_BYTES, (i + 1) * ETAG_UNIT_BYTES));
    const [open, last] = [pool.begin(true), pool.begin(true)];
    feed((h, n) => open.update(h, n), body, BATCH_BUFFER_BYTES);
    feed((h, n) => last.update(h, n), body, BATCH_BUFFER_BYTES + 3);
    const [a, b] = await Promise.all([open.digest(false), last.digest(true)]);
    expect(Buffer.from(a.units!)).toEqual(Buffer.concat([unit(0), unit(1)]));
    expect(Buffer.from(b.units!)).toEqual(Buffer.concat([unit(0), unit(1), unit(2)]));
    expect(b.md5Hex).toBe(createHash('md5').update(body).digest('hex'));
  });

  it('fails a job still waiting when it closes, and refuses new jobs', async () => {
    const pool = new HashPool(1);
    const job = pool.begin();
    feed((h, n) => job.update(h, n), randomBytes(10), 10);
    const closing = pool.close();
    const digest = job.digest().catch((e: unknown) => e);
    await closing;
    await expect(digest).resolves.toBeInstanceOf(Error);
    expect(() => pool.begin()).toThrow(/closed/);
    const late = new HashPool(1);
    const lateJob = late.begin();
    await late.close();
    await expect(lateJob.digest()).rejects.toThrow(/closed/);
  });

  it("hashes with node:zlib's CRC-32 when base/crc32.ts uses it (no native module)", async () => {
    vi.resetModules();
    vi.stubEnv('BLOCKLIFT_NO_NATIVE_CRC32', '1');
    try {
      const { crc32ModuleFile } = await import('../../../src-main/base/crc32');
      expect(crc32ModuleFile()).toBeNull();
      const { HashPool: ZlibPool } = await import('../../../src-main/emulator/hash-pool');
      const pool = new ZlibPool(1);
      pools.push(pool);
      const body = randomBytes(BATCH_BUFFER_BYTES + 4099);
      const job = pool.begin();
      feed((h, n) => job.update(h, n), body, BATCH_BUFFER_BYTES);
      expect(await job.digest()).toMatchObject({
        md5Hex: createHash('md5').update(body).digest('hex'),
        crc32: crc32(body),
      });
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
