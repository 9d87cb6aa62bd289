import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_BUFFER_BYTES, HashPool } from '../../../src-main/emulator/hash-pool';

/** Copies `data` into pool buffers of at most `batch` bytes and hands them to `update`. */
function feed(pool: HashPool, update: (sab: SharedArrayBuffer, length: number) => void, data: Buffer, batch: number) {
  for (let pos = 0; pos < data.length; pos += batch) {
    const part = data.subarray(pos, pos + batch);
    const sab = pool.buffer(batch);
    Buffer.from(sab).set(part);
    update(sab, part.length);
  }
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
    bodies.forEach((b, i) => feed(pool, (sab, n) => jobs[i]!.update(sab, 0, n), b, BATCH_BUFFER_BYTES));
    const got = await Promise.all(jobs.map((j) => j.digest()));
    expect(got).toEqual(bodies.map((b) => ({ md5Hex: createHash('md5').update(b).digest('hex'), crc32: crc32(b) })));
    // A dropped job answers nothing and leaves the others alone.
    const dropped = pool.begin();
    dropped.update(pool.buffer(4), 0, 4);
    dropped.drop();
    const after = pool.begin();
    feed(pool, (sab, n) => after.update(sab, 0, n), Buffer.from('abc'), 3);
    expect(await after.digest()).toEqual({
      md5Hex: createHash('md5').update('abc').digest('hex'),
      crc32: crc32('abc'),
    });
  });

  it('fails a job still waiting when it closes, and refuses new jobs', async () => {
    const pool = new HashPool(1);
    const job = pool.begin();
    feed(pool, (sab, n) => job.update(sab, 0, n), randomBytes(10), 10);
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
});
