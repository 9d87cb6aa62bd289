import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DIRECT_IO_ALIGN, O_DIRECT } from '../../../src-main/base/direct-io';
import { BufferPool } from '../../../src-main/engine/buffers';
import { FileSource, MIN_DIRECT_READ_BYTES } from '../../../src-main/engine/file-source';

const MiB = 1024 * 1024;
const dir = mkdtempSync(path.join(os.tmpdir(), 'blocklift-file-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of random bytes, written and fsynced (so its pages are clean and in the page cache). */
function fileOf(name: string, size: number): { file: string; bytes: Buffer } {
  const file = path.join(dir, name);
  const bytes = randomBytes(size);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  readFileSync(file); // and read once: a read through the page cache now costs no disk read
  return { file, bytes };
}

/** Bytes this process has had fetched from storage (every thread's; /proc/self/io). */
function storageReadBytes(): number {
  return Number(/^read_bytes: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

const openFds = () => readdirSync('/proc/self/fd').length;

/** Whether the temp folder's file system takes O_DIRECT at all (tmpfs before Linux 6.6 does not). */
const directHere = ((): boolean => {
  if (O_DIRECT === undefined) return false;
  const probe = path.join(dir, 'probe');
  try {
    closeSync(openSync(probe, constants.O_WRONLY | constants.O_CREAT | O_DIRECT));
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
})();

const SIZE = 2 * MiB + 1234; // not a whole number of 4 KiB pages
const { file, bytes } = fileOf('data', SIZE);
const pool = new BufferPool(MiB, 8);
const sources: FileSource[] = [];
async function source(): Promise<FileSource> {
  const s = await FileSource.open(file);
  sources.push(s);
  return s;
}
afterEach(async () => {
  delete process.env.BLOCKLIFT_NO_DIRECT_IO;
  await Promise.all(sources.splice(0).map((s) => s.close()));
});

describe('FileSource.readChunk', () => {
  it('returns the file’s bytes, whatever the position, length and buffer', async () => {
    const s = await source();
    const cases: [length: number, position: number, buf: Buffer][] = [
      [MiB, 0, pool.take(MiB)], // a whole chunk on a page boundary
      [SIZE - MiB, MiB, pool.take(2 * MiB)], // the file's tail: ends inside a page
      [MIN_DIRECT_READ_BYTES - 1, 4 * DIRECT_IO_ALIGN, pool.take(MiB)], // too short to go direct
      [300 * 1024, 1000, pool.take(MiB)], // off a page boundary
      [MiB, 0, Buffer.alloc(MiB)], // a buffer with no room to align in
    ];
    for (const [length, position, buf] of cases) {
      const view = await s.readChunk(buf, length, position);
      expect(view.length).toBe(length);
      expect(view.buffer).toBe(buf.buffer);
      expect(view.equals(bytes.subarray(position, position + length))).toBe(true);
    }
  });

  it('reads a chunk from the disk, not through the page cache', async (ctx) => {
    if (!directHere) ctx.skip('the temp folder’s file system (or this platform) takes no O_DIRECT');
    const s = await source();
    const buf = pool.take(MiB);
    const before = storageReadBytes();
    const view = await s.readChunk(buf, MiB, MiB);
    expect(view.equals(bytes.subarray(MiB, 2 * MiB))).toBe(true);
    // The file is in the page cache: only a direct read fetches it from the disk again.
    expect(storageReadBytes() - before).toBeGreaterThanOrEqual(MiB);
  });

  it('reads through the page cache when BLOCKLIFT_NO_DIRECT_IO=1', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip('counts its disk reads in /proc/self/io, which only Linux has');
    process.env.BLOCKLIFT_NO_DIRECT_IO = '1';
    const s = await source();
    const before = storageReadBytes();
    const view = await s.readChunk(pool.take(MiB), MiB, MiB);
    expect(view.equals(bytes.subarray(MiB, 2 * MiB))).toBe(true);
    expect(view.byteOffset).toBe(0);
    expect(storageReadBytes() - before).toBeLessThan(MiB);
  });

  it('opens one direct descriptor for reads that start together, and close() closes it', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip('counts its descriptors in /proc/self/fd, which only Linux has');
    const fdsBefore = openFds();
    const s = await FileSource.open(file);
    const bufs = Array.from({ length: 8 }, () => pool.take(MiB / 4));
    const views = await Promise.all(bufs.map((b, i) => s.readChunk(b, MiB / 4, i * (MiB / 4))));
    views.forEach((v, i) => expect(v.equals(bytes.subarray(i * (MiB / 4), (i + 1) * (MiB / 4)))).toBe(true));
    expect(openFds() - fdsBefore).toBe(directHere ? 2 : 1);
    await s.close();
    expect(openFds()).toBe(fdsBefore);
  });

  it('reads the file it opened, even after another file was renamed over its path', async () => {
    const { file: own, bytes: ownBytes } = fileOf('renamed-over', 2 * MiB);
    const s = await FileSource.open(own);
    sources.push(s);
    const { file: other } = fileOf('other', 2 * MiB);
    renameSync(other, own); // an editor's save: a new file takes the name
    const view = await s.readChunk(pool.take(MiB), MiB, MiB);
    expect(view.equals(ownBytes.subarray(MiB, 2 * MiB))).toBe(true);
  });

  it('says the file changed when it is shorter than the chunk', async () => {
    const s = await source();
    await expect(s.readChunk(pool.take(MiB), MiB, SIZE - MiB / 2)).rejects.toMatchObject({ code: 'file-changed' });
  });
});
