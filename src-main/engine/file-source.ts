import { constants, readSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { crc32 } from '../base/crc32';
import { DIRECT_IO_ALIGN, O_DIRECT, alignUp, isDirectIoRefusal, probeAlignedOffset } from '../base/direct-io';
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

/** Chunks shorter than this are read through the page cache (a direct read saves little on them). */
export const MIN_DIRECT_READ_BYTES = 64 * 1024;

/** True when BLOCKLIFT_NO_DIRECT_IO asks for reads through the page cache only. */
export function directReadsDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BLOCKLIFT_NO_DIRECT_IO;
  return v !== undefined && v !== '' && v !== '0';
}

/**
 * Per read buffer (BufferPool's, reused), the offset into it at which O_DIRECT accepts the
 * memory, probed once; null when no offset was accepted.
 */
const alignedOffsets = new WeakMap<Buffer, number | null>();

/**
 * The local file of a transfer, open for reading. Every failure is a TransferFailure with a
 * code a person can act on (file-missing, file-unreadable, file-changed, file-vanished).
 * The owner closes it.
 */
export class FileSource {
  /**
   * A second descriptor of the file opened with O_DIRECT, for chunk reads (`readChunk`):
   * undefined until the first one, null when the platform, the file system or
   * BLOCKLIFT_NO_DIRECT_IO says no.
   */
  private direct: FileHandle | null | undefined;
  private directOpening: Promise<unknown> | undefined;

  private constructor(
    readonly path: string,
    readonly handle: FileHandle,
  ) {
    if (O_DIRECT === undefined || directReadsDisabledByEnv()) this.direct = null;
  }

  static async open(p: string): Promise<FileSource> {
    try {
      return new FileSource(p, await open(p, 'r'));
    } catch (e) {
      throw openFailure(p, e);
    }
  }

  /** Size and whole-ms mtime of the open file; refuses anything but a regular file. */
  async stat(): Promise<{ size: number; mtimeMs: number }> {
    return regularFile(this.path, await this.handle.stat());
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
      if (bytesRead === 0)
        throw new TransferFailure('file-changed', `${this.path} became shorter while it was uploaded`);
      done += bytesRead;
    }
  }

  /**
   * Reads the `length` bytes at `position` into `buf` and returns the view of `buf` that holds
   * them. Where it can, the read is direct (O_DIRECT): the disk's bytes land in `buf` without
   * the kernel's copy through the page cache, which is about a tenth of the uploader's CPU
   * per GiB (src-main/engine/README.md), and a 200 GB file read once does not push everything
   * else out of the page cache. That needs `position` on a 4 KiB boundary, `buf` at least
   * DIRECT_IO_ALIGN bytes longer than `length` rounded up to 4 KiB (BufferPool's are), and a
   * file system that takes O_DIRECT; the view then starts at the offset of `buf` whose address
   * the kernel accepts. Otherwise, and for whatever a direct read leaves, the read goes
   * through the page cache, from the start of `buf`. Failures as `readAt`.
   */
  async readChunk(buf: Buffer, length: number, position: number): Promise<Buffer> {
    const off = await this.directOffset(buf, length, position);
    const view = buf.subarray(off ?? 0, (off ?? 0) + length);
    let done = 0;
    if (off !== null) {
      try {
        done = await this.readDirect(buf, off, length, position);
      } catch (e) {
        if (!isDirectIoRefusal(e)) throw readFailure(this.path, e);
        // Refused after all: the buffer was probed on another file's device, which takes
        // memory this one does not (the next file to use the buffer probes it again), or
        // the file system said yes only at open. This file is read through the page cache
        // from now on.
        alignedOffsets.delete(buf);
        await this.dropDirect();
        done = 0;
      }
    }
    if (done < length) await this.readAt(view.subarray(done), position + done);
    return view;
  }

  /**
   * Direct reads into `buf` from `off` until `length` bytes are in or a read ends short of
   * a 4 KiB boundary (the rest is then read through the page cache). Each read asks for a
   * whole number of 4 KiB pages: at the file's end the kernel returns what there is.
   */
  private async readDirect(buf: Buffer, off: number, length: number, position: number): Promise<number> {
    const fh = this.direct!;
    let done = 0;
    while (done < length && done % DIRECT_IO_ALIGN === 0) {
      const { bytesRead } = await fh.read(buf, off + done, alignUp(length - done), position + done);
      if (bytesRead === 0) break; // shorter than expected: readAt says file-changed
      done = Math.min(length, done + bytesRead);
    }
    return done;
  }

  /** The offset of `buf` to read directly into, or null when this read goes through the page cache. */
  private async directOffset(buf: Buffer, length: number, position: number): Promise<number | null> {
    if (this.direct === null || length < MIN_DIRECT_READ_BYTES || position % DIRECT_IO_ALIGN !== 0) return null;
    if (this.direct === undefined) {
      // The file's blocks ask at once: one open for all of them. Opened through the handle
      // (/proc/self/fd), not the path: the same file even if another was renamed over it
      // since, so every chunk comes from the one file the change checks are about.
      this.directOpening ??= open(`/proc/self/fd/${this.handle.fd}`, constants.O_RDONLY | O_DIRECT!).then(
        (fh) => (this.direct === undefined ? (this.direct = fh) : (void fh.close().catch(() => undefined), null)),
        // EINVAL: the file system takes no O_DIRECT (tmpfs before Linux 6.6, some FUSE ones);
        // ENOENT: no /proc. Anything else, the reads through `handle` will say.
        () => (this.direct = null),
      );
      await this.directOpening;
      if (!this.direct) return null;
    }
    let off = alignedOffsets.get(buf);
    if (off === undefined) {
      off = this.probe(buf);
      alignedOffsets.set(buf, off);
    }
    return off !== null && off + alignUp(length) <= buf.length ? off : null;
  }

  /**
   * The offset of `buf` whose address O_DIRECT accepts: one direct read of the file's first
   * 4 KiB (the file is at least MIN_DIRECT_READ_BYTES long) from each candidate until one is
   * accepted. Synchronous: the refused ones fail before any I/O; the accepted one is a single
   * 4 KiB read, once per buffer of the pool.
   */
  private probe(buf: Buffer): number | null {
    const fd = this.direct!.fd;
    return probeAlignedOffset((at) => {
      if (at + DIRECT_IO_ALIGN > buf.length) return false;
      try {
        return readSync(fd, buf, at, DIRECT_IO_ALIGN, 0) > 0;
      } catch (e) {
        if (isDirectIoRefusal(e)) return false;
        throw readFailure(this.path, e);
      }
    });
  }

  /** No more direct reads of this file; closes the descriptor (also one still opening). */
  private async dropDirect(): Promise<void> {
    const fh = this.direct;
    this.direct = null;
    await fh?.close().catch(() => undefined);
    await this.directOpening;
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
    await this.dropDirect();
    await this.handle.close().catch(() => undefined);
  }
}

/** Largest file read whole by the engine's reader thread (small-reader.ts); larger ones go through FileSource. */
export const SMALL_FILE_MAX_BYTES = 256 * 1024;
