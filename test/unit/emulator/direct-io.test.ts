import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIRECT_IO_ALIGN } from '../../../src-main/base/direct-io';
import {
  BATCH_BUFFER_BYTES,
  BatchBuffers,
  BlockFileWriter,
  directIoDisabledByEnv,
} from '../../../src-main/emulator/direct-io';

const dirs: string[] = [];
function tempDir(base = os.tmpdir()): string {
  const d = mkdtempSync(path.join(base, 'blocklift-direct-io-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Writes `data` through `writer` in batches from `buffers`, from file position `at` on. */
async function writeThrough(buffers: BatchBuffers, writer: BlockFileWriter, data: Buffer, at: number): Promise<void> {
  for (let pos = 0; pos < data.length; pos += BATCH_BUFFER_BYTES) {
    const batch = buffers.take();
    const part = data.subarray(pos, pos + BATCH_BUFFER_BYTES);
    part.copy(batch.view);
    await writer.write(batch, part.length, at + pos);
    buffers.give([batch]);
  }
}

/** Aligned and unaligned lengths and positions: a body ending mid-sector, a chunk at an odd offset. */
async function checkWrites(buffers: BatchBuffers, dir: string): Promise<void> {
  const file = path.join(dir, 'block');
  const first = randomBytes(2 * BATCH_BUFFER_BYTES + 3 * DIRECT_IO_ALIGN + 123);
  const created = new BlockFileWriter(file, true, buffers);
  await writeThrough(buffers, created, first, 0);
  created.close();
  expect(readFileSync(file).equals(first)).toBe(true);
  // The next chunk starts at an unaligned offset (buffered), then one at an aligned offset past it.
  const second = randomBytes(BATCH_BUFFER_BYTES + 77);
  const third = randomBytes(DIRECT_IO_ALIGN * 5);
  const thirdAt = 4 * BATCH_BUFFER_BYTES;
  const more = new BlockFileWriter(file, false, buffers);
  await writeThrough(buffers, more, second, first.length);
  await writeThrough(buffers, more, third, thirdAt);
  more.close();
  const expected = Buffer.alloc(thirdAt + third.length);
  first.copy(expected, 0);
  second.copy(expected, first.length);
  third.copy(expected, thirdAt);
  expect(readFileSync(file).equals(expected)).toBe(true);
  // A rewrite over a cut chunk's garbage (same region again) replaces it.
  const again = randomBytes(BATCH_BUFFER_BYTES);
  const redo = new BlockFileWriter(file, false, buffers);
  await writeThrough(buffers, redo, again, 0);
  redo.close();
  again.copy(expected, 0);
  expect(readFileSync(file).equals(expected)).toBe(true);
}

describe('direct I/O for block files', () => {
  it('writes every byte in place with O_DIRECT where the file system allows it, aligned buffers recycled', async () => {
    const dir = tempDir();
    const buffers = new BatchBuffers(dir);
    const probe = buffers.take();
    const direct = buffers.direct;
    if (direct) {
      expect(probe.aligned).toBe(true);
      expect(probe.view.length).toBe(BATCH_BUFFER_BYTES);
      buffers.give([probe]);
      expect(buffers.take()).toBe(probe);
    }
    await checkWrites(buffers, dir);
    // No write was refused on the way (which would have turned direct I/O off).
    expect(buffers.direct).toBe(direct);
    buffers.close();
    // The probe file does not stay behind.
    expect(existsSync(path.join(dir, `direct-io-probe-${process.pid}`))).toBe(false);
  });

  it('falls back to buffered writes when turned off or refused', async () => {
    const off = new BatchBuffers(null);
    expect(off.direct).toBe(false);
    expect(off.take().aligned).toBe(false);
    await checkWrites(off, tempDir());
    // Another file system (tmpfs: refused by older kernels, taken by newer ones): the same bytes either way.
    if (existsSync('/dev/shm')) {
      const shm = tempDir('/dev/shm');
      const refused = new BatchBuffers(shm);
      await checkWrites(refused, shm);
      refused.close();
    }
    expect(directIoDisabledByEnv({ BLOCKLIFT_EMULATOR_NO_DIRECT_IO: '1' })).toBe(true);
    expect(directIoDisabledByEnv({ BLOCKLIFT_EMULATOR_NO_DIRECT_IO: '0' })).toBe(false);
    expect(directIoDisabledByEnv({})).toBe(false);
  });

  it('refuses to open a missing block file for a later chunk (the block lost its file)', () => {
    const dir = tempDir();
    const buffers = new BatchBuffers(dir);
    expect(() => new BlockFileWriter(path.join(dir, 'gone'), false, buffers)).toThrow(/ENOENT/);
    writeFileSync(path.join(dir, 'there'), 'x');
    new BlockFileWriter(path.join(dir, 'there'), false, buffers).close();
    buffers.close();
  });
});
