import type { Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { crc32 } from '../base/crc32';
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

/** Largest file read whole by the engine's reader thread (small-reader.ts); larger ones go through FileSource. */
export const SMALL_FILE_MAX_BYTES = 256 * 1024;
