import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { crc32 } from '../base/crc32';
import { TransferFailure } from './errors';
import type { TurnBudget } from './turn-budget';

/** What a person can do about a file that would not open. */
function openFailure(p: string, e: unknown): TransferFailure {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new TransferFailure('file-missing', `${p} does not exist (moved or deleted?)`);
  if (code === 'EACCES' || code === 'EPERM')
    return new TransferFailure('file-unreadable', `${p} cannot be read: permission denied`);
  return new TransferFailure('file-unreadable', `${p} cannot be opened: ${(e as Error).message}`);
}

/** Size and whole-ms mtime of an open file's stats; refuses anything but a regular file. */
function regularFile(p: string, st: Stats): { size: number; mtimeMs: number } {
  if (!st.isFile()) throw new TransferFailure('file-unreadable', `${p} is not a regular file`);
  return { size: st.size, mtimeMs: Math.floor(st.mtimeMs) };
}

function readFailure(p: string, e: unknown): TransferFailure {
  return new TransferFailure('file-unreadable', `${p} could not be read: ${(e as Error).message}`, { cause: e });
}

/**
 * The local file of a transfer, open for reading. Every failure is a TransferFailure with a
 * code a person can act on (file-missing, file-unreadable, file-changed, file-vanished).
 * The owner closes it.
 */
export class FileSource {
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
    await this.handle.close().catch(() => undefined);
  }
}

/** Largest file read with synchronous calls (SmallFile); larger ones go through FileSource. */
export const SMALL_FILE_MAX_BYTES = 256 * 1024;
const MAX_REREADS_ON_CHANGE = 2;

/**
 * A small local file (at most SMALL_FILE_MAX_BYTES), read whole with synchronous calls: an
 * open, an fstat and one read cost a few µs each, where the promise API costs a thread-pool
 * round trip per call, and those dominate the client's CPU per small file. The open does not
 * block (O_NONBLOCK): a FIFO or a device fails as "not a regular file" instead of hanging
 * the event loop. Reads take their bytes from the engine's TurnBudget, so a burst of small
 * files cannot hold the loop. The owner closes it.
 */
export class SmallFile {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
    readonly size: number,
    readonly mtimeMs: number,
  ) {}

  /** Opens `p` when it is a regular file of at most `maxBytes`; undefined (nothing left open) when larger. */
  static open(p: string, maxBytes: number): SmallFile | undefined {
    let fd: number;
    try {
      fd = openSync(p, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    } catch (e) {
      throw openFailure(p, e);
    }
    try {
      const { size, mtimeMs } = regularFile(p, fstatSync(fd));
      if (size > maxBytes) {
        closeSync(fd);
        return undefined;
      }
      return new SmallFile(p, fd, size, mtimeMs);
    } catch (e) {
      closeSync(fd);
      throw e instanceof TransferFailure ? e : readFailure(p, e);
    }
  }

  /**
   * The whole file and the mtime it had, read again (at most twice) when its size or mtime
   * changed while it was read; a file that keeps changing, or grows past `maxBytes`, is
   * file-changed.
   */
  async read(budget: TurnBudget, maxBytes: number): Promise<{ data: Buffer; mtimeMs: number }> {
    let { size, mtimeMs } = this;
    for (let rereads = 0; ; rereads++) {
      await budget.take(Math.max(1, size));
      const fd = this.fd;
      if (fd === undefined) throw new TransferFailure('file-unreadable', `${this.path} was closed while it was read`);
      const data = Buffer.allocUnsafe(size);
      let after: { size: number; mtimeMs: number };
      try {
        let done = 0;
        while (done < size) {
          const n = readSync(fd, data, done, size - done, done);
          if (n === 0) break;
          done += n;
        }
        after = regularFile(this.path, fstatSync(fd));
        if (done < size) after = { ...after, size: Math.min(after.size, done) };
      } catch (e) {
        throw e instanceof TransferFailure ? e : readFailure(this.path, e);
      }
      if (after.size === size && after.mtimeMs === mtimeMs) return { data, mtimeMs };
      if (rereads >= MAX_REREADS_ON_CHANGE || after.size > maxBytes)
        throw new TransferFailure(
          'file-changed',
          `${this.path} kept changing while it was read; upload it again when it is complete`,
        );
      ({ size, mtimeMs } = after);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // closing a file we only read cannot lose anything
    }
    this.fd = undefined;
  }
}
