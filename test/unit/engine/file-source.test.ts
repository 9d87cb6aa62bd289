import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statfsSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DIRECT_IO_ALIGN, O_DIRECT } from '../../../src-main/base/direct-io';
import { BufferPool } from '../../../src-main/engine/buffers';
import { DIRECT_READ_FILE_SYSTEMS, FileSource, MIN_DIRECT_READ_BYTES } from '../../../src-main/engine/file-source';

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

/**
 * This process's descriptors open on `file` (unit tests share one process: other files'
 * descriptors are not counted).
 */
function fdsOn(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** Whether chunks of files in the temp folder are read directly here (Linux, one of the file systems listed for it). */
const directHere = O_DIRECT !== undefined && DIRECT_READ_FILE_SYSTEMS.has(statfsSync(dir).type);
const NO_DIRECT_HERE = `the temp folder is on ${statfsSync(dir).type.toString(16)}, not a file system the engine reads directly (or this platform has no O_DIRECT)`;

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
    if (!directHere) ctx.skip(NO_DIRECT_HERE);
    const s = await source();
    const buf = pool.take(MiB);
    const before = storageReadBytes();
    const view = await s.readChunk(buf, MiB, MiB);
    expect(view.equals(bytes.subarray(MiB, 2 * MiB))).toBe(true);
    // The file is in the page cache: only a direct read fetches it from the disk again.
    expect(storageReadBytes() - before).toBeGreaterThanOrEqual(MiB);
    expect(fdsOn(file)).toBe(2); // the file's handle and its direct descriptor
  });

  it('reads through the page cache when BLOCKLIFT_NO_DIRECT_IO=1', async (ctx) => {
    if (!directHere) ctx.skip(NO_DIRECT_HERE);
    process.env.BLOCKLIFT_NO_DIRECT_IO = '1';
    const s = await source();
    const view = await s.readChunk(pool.take(MiB), MiB, MiB);
    expect(view.equals(bytes.subarray(MiB, 2 * MiB))).toBe(true);
    expect(view.byteOffset).toBe(0);
    expect(fdsOn(file)).toBe(1); // no direct descriptor
  });

  it('opens one direct descriptor for reads that start together, and close() closes it', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip('counts descriptors in /proc/self/fd, which only Linux has');
    const s = await FileSource.open(file);
    const bufs = Array.from({ length: 8 }, () => pool.take(MiB / 4));
    const views = await Promise.all(bufs.map((b, i) => s.readChunk(b, MiB / 4, i * (MiB / 4))));
    views.forEach((v, i) => expect(v.equals(bytes.subarray(i * (MiB / 4), (i + 1) * (MiB / 4)))).toBe(true));
    expect(fdsOn(file)).toBe(directHere ? 2 : 1);
    await s.close();
    expect(fdsOn(file)).toBe(0);
  });

  it('reads the file it opened, even after another file was renamed over its path', async (ctx) => {
    if (!directHere) ctx.skip(NO_DIRECT_HERE);
    const { file: own, bytes: ownBytes } = fileOf('renamed-over', 2 * MiB);
    const s = await FileSource.open(own);
    sources.push(s);
    const { file: other } = fileOf('other', 2 * MiB);
    renameSync(other, own); // an editor's save: a new file takes the name
    const view = await s.readChunk(pool.take(MiB), MiB, MiB);
    expect(view.equals(ownBytes.subarray(MiB, 2 * MiB))).toBe(true);
  });

  it('says the file changed when a direct read finds it ends on a page boundary before the chunk does', async () => {
    const { file: short } = fileOf('ends-on-a-page', 2 * MiB);
    const s = await FileSource.open(short);
    sources.push(s);
    // Direct: 512 KiB come, then the end of the file (a read of 0 bytes) where 1 MiB was due.
    await expect(s.readChunk(pool.take(MiB), MiB, 1.5 * MiB)).rejects.toMatchObject({ code: 'file-changed' });
  });

  it('reads a file on a file system outside the list through the page cache (tmpfs: /dev/shm)', async (ctx) => {
    let shm: string;
    try {
      if (DIRECT_READ_FILE_SYSTEMS.has(statfsSync('/dev/shm').type)) throw new Error('listed');
      shm = mkdtempSync('/dev/shm/blocklift-file-source-');
    } catch {
      return ctx.skip('no /dev/shm outside the list of file systems read directly');
    }
    try {
      const f = path.join(shm, 'data');
      writeFileSync(f, bytes);
      const s = await FileSource.open(f);
      const view = await s.readChunk(pool.take(MiB), MiB, 0);
      expect(view.equals(bytes.subarray(0, MiB))).toBe(true);
      expect(view.byteOffset).toBe(0);
      expect(fdsOn(f)).toBe(1); // no second, direct descriptor
      await s.close();
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  });

  it('says the file changed when it is shorter than the chunk', async () => {
    const s = await source();
    await expect(s.readChunk(pool.take(MiB), MiB, SIZE - MiB / 2)).rejects.toMatchObject({ code: 'file-changed' });
  });
});
