import { constants, type Stats } from 'node:fs';
import { open, stat, statfs, type FileHandle } from 'node:fs/promises';
import { crc32 } from '../base/crc32';
import { DIRECT_IO_ALIGN, O_DIRECT, alignUp, alignmentCandidates, isDirectIoRefusal } from '../base/direct-io';
import { formatBytes } from '../common/units';
import { TransferFailure } from './errors';

/** What a person can do about a file that would not open. */
export function openFailure(p: string, e: unknown): TransferFailure {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new TransferFailure('file-missing', `${p} does not exist (moved or deleted?)`);
  if (code === 'EACCES' || code === 'EPERM')
    return new TransferFailure('file-unreadable', `${p} cannot be read: permission denied`);
  return new TransferFailure('file-unreadable', `${p} cannot be opened: ${(e as Error).message}`);
}

/** Size and whole-ms mtime of an open file's stats; refuses anything but a regular file. */
function regularFile(p: string, st: Stats): { size: number; mtimeMs: number } {
  if (!st.isFile()) throw notRegularFile(p);
  return { size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
}

/** A FIFO, a device, a directory: nothing the engine uploads. */
export function notRegularFile(p: string): TransferFailure {
  return new TransferFailure('file-unreadable', `${p} is not a regular file`);
}

export function readFailure(p: string, e: unknown): TransferFailure {
  return new TransferFailure('file-unreadable', `${p} could not be read: ${(e as Error).message}`, { cause: e });
}

/** A small file whose size or mtime changed at every read (read whole, then checked). */
export function keptChangingWhileRead(p: string): TransferFailure {
  return new TransferFailure(
    'file-changed',
    `${p} kept changing while it was read; upload it again when it is complete`,
  );
}

/**
 * A file that ended before the upload's last byte: what it measured when the upload planned
 * it and what it measures now, in words and exact bytes (two sizes a byte apart read the
 * same in MiB), so the failure line says what happened rather than leaving the size the
 * transfer shows (the planned one) to stand as the file's size.
 */
export function becameShorter(p: string, was: number | undefined, now: number | undefined): TransferFailure {
  const size = (n: number) => `${formatBytes(n)} (${n} bytes)`;
  const figures =
    was !== undefined && now !== undefined
      ? `: it was ${size(was)} when the upload started and is ${size(now)} now`
      : now !== undefined
        ? `: it is ${size(now)} now`
        : '';
  return new TransferFailure(
    'file-changed',
    `${p} became shorter while it was uploaded${figures}; upload it again when it is complete`,
  );
}

/** Chunks shorter than this are read through the page cache (a direct read saves little on them). */
export const MIN_DIRECT_READ_BYTES = 64 * 1024;

/**
 * The file systems whose files are read with O_DIRECT (statfs `f_type`): local block file
 * systems whose direct reads go to the disk. Elsewhere O_DIRECT saves nothing or means
 * something else: btrfs and tmpfs serve a misaligned direct read from memory without a word,
 * and on NFS or SMB it changes how the client caches the file (other programs' reads of it
 * included). Those files are read through the page cache.
 */
export const DIRECT_READ_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0xef53, 'ext2/3/4'],
  [0x58465342, 'xfs'],
  [0xf2f52010, 'f2fs'],
]);

/** True when BLOCKLIFT_NO_DIRECT_IO asks for reads through the page cache only. */
export function directReadsDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BLOCKLIFT_NO_DIRECT_IO;
  return v !== undefined && v !== '' && v !== '0';
}

/**
 * Per read buffer (BufferPool's, reused) and device, the offset into the buffer at which
 * O_DIRECT accepts its memory, probed once (devices differ in the alignment they need).
 */
const alignedOffsets = new WeakMap<Buffer, Map<number, number>>();

/**
 * The local file of a transfer, open for reading. Every failure is a TransferFailure with a
 * code a person can act on (file-missing, file-unreadable, file-changed, file-vanished).
 * The owner closes it.
 */
export class FileSource {
  /**
   * A second descriptor of the file opened with O_DIRECT, for chunk reads (`readChunk`), and
   * its device: undefined until the first chunk, null when the platform, the file system or
   * BLOCKLIFT_NO_DIRECT_IO says no. Kept open until `close()` even once direct reads stop
   * (`directOff`), so a read of another block still using it never meets a closed descriptor.
   */
  private direct: { fh: FileHandle; dev: number } | null | undefined;
  private directOpening: Promise<void> | undefined;
  /** Direct reads of this file stopped (one failed, or no buffer offset was accepted). */
  private directOff = false;
  private closed = false;
  /** The size the last `stat()` found: the one the upload is planned with (said when the file ends early). */
  private plannedSize: number | undefined;

  private constructor(
    readonly path: string,
    readonly handle: FileHandle,
  ) {}

  static async open(p: string): Promise<FileSource> {
    try {
      return new FileSource(p, await open(p, 'r'));
    } catch (e) {
      throw openFailure(p, e);
    }
  }

  /** Size and whole-ms mtime of the open file; refuses anything but a regular file. */
  async stat(): Promise<{ size: number; mtimeMs: number }> {
    const st = regularFile(this.path, await this.handle.stat());
    this.plannedSize = st.size;
    return st;
  }

  /** Fills `target` from `position`; a file that ends early is file-changed. */
  async readAt(target: Buffer, position: number): Promise<void> {
    let done = 0;
    while (done < target.length) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await this.handle.read(target, done, target.length - done, position + done));
      } catch (e) {
        throw readFailure(this.path, e);
      }
      if (bytesRead === 0) {
        // The open file's size now (the one read: a file renamed over the path is another file).
        const now = await this.handle.stat().then(
          (st) => st.size,
          () => undefined,
        );
        throw becameShorter(this.path, this.plannedSize, now);
      }
      done += bytesRead;
    }
  }

  /**
   * Reads the `length` bytes at `position` into `buf` and returns the view of `buf` that holds
   * them. Where it can, the read is direct (O_DIRECT): the disk's bytes land in `buf` without
   * the kernel's copy through the page cache, which is about a tenth of the uploader's CPU
   * per GiB (src-main/engine/README.md), and a 200 GB file read once does not push everything
   * else out of the page cache. That needs Linux, a file system of DIRECT_READ_FILE_SYSTEMS,
   * `position` on a 4 KiB boundary, `length` of MIN_DIRECT_READ_BYTES or more, and `buf` at
   * least DIRECT_IO_ALIGN bytes longer than `length` rounded up to 4 KiB (BufferPool's are);
   * the view then starts at the offset of `buf` whose address the kernel accepts. Otherwise,
   * and for whatever a direct read leaves, the read goes through the page cache into the same
   * view. Direct reads are only a saving: when one fails, for whatever reason, this file is
   * read through the page cache from then on, and that read says what is wrong, if anything
   * is. Failures as `readAt`.
   */
  async readChunk(buf: Buffer, length: number, position: number): Promise<Buffer> {
    const d = await this.directFor(buf, length, position);
    const off = d?.off ?? 0;
    const view = buf.subarray(off, off + length);
    let done = 0;
    if (d) {
      try {
        done = await readDirect(d.fh, buf, off, length, position);
      } catch {
        // Refused (the buffer's offset suits another device, or the file system said yes
        // only at open), or failed (a write-back of the file's dirty pages, an I/O error):
        // the page cache from now on, from the start of this chunk.
        alignedOffsets.get(buf)?.delete(d.dev);
        this.directOff = true;
        done = 0;
      }
    }
    if (done < length) await this.readAt(view.subarray(done), position + done);
    return view;
  }

  /** The direct descriptor and the offset of `buf` to read into, or null when this read goes through the page cache. */
  private async directFor(
    buf: Buffer,
    length: number,
    position: number,
  ): Promise<{ fh: FileHandle; off: number; dev: number } | null> {
    if (this.direct === null || this.directOff) return null;
    if (length < MIN_DIRECT_READ_BYTES || position % DIRECT_IO_ALIGN !== 0) return null;
    // The file's blocks ask at once: one open for all of them.
    if (this.direct === undefined) await (this.directOpening ??= this.openDirect());
    const d = this.direct;
    if (!d || this.directOff) return null;
    let off = alignedOffsets.get(buf)?.get(d.dev);
    if (off === undefined) {
      const probed = await probeBuffer(d.fh, buf);
      if (probed === null) {
        this.directOff = true; // no offset accepted: this file system refuses direct reads
        return null;
      }
      off = probed;
      const byDevice = alignedOffsets.get(buf) ?? new Map<number, number>();
      byDevice.set(d.dev, off);
      alignedOffsets.set(buf, byDevice);
    }
    return off + alignUp(length) <= buf.length ? { fh: d.fh, off, dev: d.dev } : null;
  }

  /**
   * Opens the direct descriptor, when the file's file system is one of
   * DIRECT_READ_FILE_SYSTEMS. Opened through the handle (/proc/self/fd), not the path: the
   * same file even if another was renamed over it since, so every chunk comes from the one
   * file the change checks are about. Any failure (no /proc, EINVAL: no O_DIRECT there, a
   * permission changed since the first open) leaves the page cache.
   */
  private async openDirect(): Promise<void> {
    if (O_DIRECT === undefined || directReadsDisabledByEnv()) {
      this.direct = null;
      return;
    }
    try {
      const same = `/proc/self/fd/${this.handle.fd}`;
      if (!DIRECT_READ_FILE_SYSTEMS.has((await statfs(same)).type)) {
        this.direct = null;
        return;
      }
      const fh = await open(same, constants.O_RDONLY | O_DIRECT);
      const { dev } = await fh.stat().catch(async (e: unknown) => {
        await fh.close().catch(() => undefined);
        throw e;
      });
      if (this.closed) {
        await fh.close().catch(() => undefined);
        this.direct = null;
        return;
      }
      this.direct = { fh, dev };
    } catch {
      this.direct = null;
    }
  }

  /** CRC-32 of `length` bytes from `position`, read through `scratch`. */
  async crc32Of(position: number, length: number, scratch: Buffer): Promise<number> {
    let crc = 0;
    for (let pos = 0; pos < length;) {
      const part = scratch.subarray(0, Math.min(scratch.length, length - pos));
      await this.readAt(part, position + pos);
      crc = crc32(part, crc);
      pos += part.length;
    }
    return crc;
  }

  /** True when the file at the path no longer has this size and mtime; file-vanished when it is gone. */
  async changedSince(size: number, mtimeMs: number): Promise<boolean> {
    let st;
    try {
      st = await stat(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new TransferFailure('file-vanished', `${this.path} was deleted while it was uploaded`);
      throw new TransferFailure('file-unreadable', `${this.path} can no longer be read: ${(e as Error).message}`);
    }
    return st.size !== size || Math.floor(st.mtimeMs) !== mtimeMs;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.directOpening;
    const d = this.direct;
    this.direct = null;
    await d?.fh.close().catch(() => undefined);
    await this.handle.close().catch(() => undefined);
  }
}

/**
 * Direct reads into `buf` from `off` until `length` bytes are in or a read ends short of a
 * 4 KiB boundary (the caller reads the rest through the page cache). Each read asks for a
 * whole number of 4 KiB pages: at the file's end the kernel returns what there is, and
 * whatever lands past `length` is outside the caller's view. Returns the bytes read.
 * open(2) warns that a fork() while a direct read fills private memory could leave the
 * bytes in the wrong process on old kernels: this process forks (the emulator host, a
 * helper program), but never writes a buffer while its read is in flight, and kernels since
 * 5.8 pin the pages against copy-on-write.
 */
async function readDirect(fh: FileHandle, buf: Buffer, off: number, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length && done % DIRECT_IO_ALIGN === 0) {
    const { bytesRead } = await fh.read(buf, off + done, alignUp(length - done), position + done);
    if (bytesRead === 0) break; // shorter than expected: the page-cache read says file-changed
    done = Math.min(length, done + bytesRead);
  }
  return done;
}

/**
 * The offset of `buf` whose address O_DIRECT accepts on the device of `fh`: one direct read
 * of the file's first 4 KiB (the file is at least MIN_DIRECT_READ_BYTES long) from each of
 * `alignmentCandidates()` until one is accepted; the usual buffer is accepted at the first
 * or the second (base/direct-io.ts). Through the thread pool, like every read of the engine.
 * Null when none is accepted, or when the read fails otherwise or finds the file empty.
 */
async function probeBuffer(fh: FileHandle, buf: Buffer): Promise<number | null> {
  for (const at of alignmentCandidates()) {
    if (at + DIRECT_IO_ALIGN > buf.length) continue;
    try {
      return (await fh.read(buf, at, DIRECT_IO_ALIGN, 0)).bytesRead > 0 ? at : null;
    } catch (e) {
      if (!isDirectIoRefusal(e)) return null;
    }
  }
  return null;
}

/** Largest file read whole by the engine's reader thread (small-reader.ts); larger ones go through FileSource. */
export const SMALL_FILE_MAX_BYTES = 256 * 1024;
