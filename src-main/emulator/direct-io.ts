import { closeSync, constants, openSync, rmSync, write, writeSync } from 'node:fs';
import path from 'node:path';
import { DIRECT_IO_ALIGN, O_DIRECT, isDirectIoRefusal, probeAlignedOffset } from '../base/direct-io';

/**
 * Block files are written with O_DIRECT where the file system allows it: the bytes go from
 * the batch buffer to the disk without a copy into the page cache, which is most of what a
 * buffered write costs (about 1 CPU-s per GiB here, against well under 0.1). O_DIRECT wants
 * the memory, the file position and the length aligned; positions and lengths are kept to
 * multiples of DIRECT_IO_ALIGN (whatever is not, the tail of a body or a chunk at an odd
 * offset, is written through the page cache as before), and each batch buffer is probed
 * once for the offset at which its memory is aligned (base/direct-io.ts). A file system
 * that refuses O_DIRECT (tmpfs), or a platform without it, gets buffered writes throughout.
 * `BLOCKLIFT_EMULATOR_NO_DIRECT_IO=1` turns it off.
 */

/**
 * Size of the batches a chunk body is handed over in; buffers of this size are recycled.
 * One etag unit, the usual chunk: one write and one hand-over per 4 MiB chunk. 1 MiB
 * batches (four of each per chunk) cost more CPU per GiB in every alternating run (the
 * table in README.md), at the price of hashing a chunk after it arrived rather than while.
 */
export const BATCH_BUFFER_BYTES = 4 * 1024 * 1024;
/** Spare buffers kept (32 MiB). */
const MAX_SPARE_BUFFERS = 8;

/** True when BLOCKLIFT_EMULATOR_NO_DIRECT_IO asks for buffered writes only. */
export function directIoDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BLOCKLIFT_EMULATOR_NO_DIRECT_IO;
  return v !== undefined && v !== '' && v !== '0';
}

/** A batch buffer: `view` (BATCH_BUFFER_BYTES long) starts `offset` bytes into `buffer`. */
export interface BatchBuffer {
  buffer: ArrayBuffer;
  offset: number;
  view: Buffer;
  /** `view` starts at an address O_DIRECT accepts. */
  aligned: boolean;
}

/**
 * Recycled batch buffers (moved to the hashing workers and back without a copy, hash-pool.ts),
 * each with its O_DIRECT-aligned offset when direct I/O is on. A buffer keeps its memory
 * through the moves, so it is probed once.
 */
export class BatchBuffers {
  private readonly spare: BatchBuffer[] = [];
  private probeFd: number | null = null;

  /** `probeDir`: a folder on the block files' file system, or null for buffered writes only. */
  constructor(probeDir: string | null) {
    if (probeDir === null || O_DIRECT === undefined) return;
    const file = path.join(probeDir, `direct-io-probe-${process.pid}`);
    try {
      this.probeFd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_DIRECT);
    } catch {
      this.probeFd = null; // the file system refuses O_DIRECT
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Direct writes are possible (until a write shows otherwise). */
  get direct(): boolean {
    return this.probeFd !== null;
  }

  /** Turns direct I/O off for good (a direct write failed where the probe had succeeded). */
  disableDirect(): void {
    if (this.probeFd === null) return;
    closeSync(this.probeFd);
    this.probeFd = null;
  }

  take(): BatchBuffer {
    const spare = this.spare.pop();
    if (spare && (spare.aligned || !this.direct)) return spare;
    const buffer = new ArrayBuffer(BATCH_BUFFER_BYTES + DIRECT_IO_ALIGN);
    const offset = this.alignedOffset(buffer);
    return batchBuffer(buffer, offset ?? 0, offset !== null);
  }

  /**
   * Gives buffers back once nothing reads them any more (the hashing worker gave them back,
   * the writes ended): a BatchBuffer, or a buffer with its offset and alignment as it came
   * back from a worker. A detached buffer (still with a worker) is left out.
   */
  give(buffers: readonly { buffer: ArrayBuffer; offset: number; aligned: boolean }[]): void {
    for (const b of buffers) {
      if (this.spare.length >= MAX_SPARE_BUFFERS) return;
      if (b.buffer.byteLength !== BATCH_BUFFER_BYTES + DIRECT_IO_ALIGN) continue;
      this.spare.push('view' in b ? (b as BatchBuffer) : batchBuffer(b.buffer, b.offset, b.aligned));
    }
  }

  close(): void {
    this.disableDirect();
    this.spare.length = 0;
  }

  /** The first offset in `buffer` whose address O_DIRECT accepts, found by trying a direct write from each. */
  private alignedOffset(buffer: ArrayBuffer): number | null {
    const fd = this.probeFd;
    if (fd === null) return null;
    const bytes = new Uint8Array(buffer);
    const off = probeAlignedOffset((at) => {
      try {
        writeSync(fd, bytes, at, DIRECT_IO_ALIGN, 0);
        return true;
      } catch {
        return false; // EINVAL: not aligned here
      }
    });
    if (off === null) this.disableDirect();
    return off;
  }
}

function batchBuffer(buffer: ArrayBuffer, offset: number, aligned: boolean): BatchBuffer {
  return { buffer, offset, view: Buffer.from(buffer, offset, BATCH_BUFFER_BYTES), aligned };
}

/**
 * One block file open for a chunk: a direct descriptor for aligned batches (when direct I/O
 * is on and the file system takes it) and a buffered one, opened when first needed, for the
 * rest. Opened synchronously: an open is a few microseconds, a trip through the thread
 * pool costs more.
 */
export class BlockFileWriter {
  private directFd: number | null = null;
  private bufferedFd: number | null = null;

  constructor(
    private readonly file: string,
    create: boolean,
    private readonly buffers: BatchBuffers,
  ) {
    const flags = create ? constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC : constants.O_WRONLY;
    if (buffers.direct) {
      try {
        this.directFd = openSync(file, flags | O_DIRECT!);
        return;
      } catch (e) {
        if (!isDirectIoRefusal(e)) throw e;
        buffers.disableDirect();
      }
    }
    this.bufferedFd = openSync(file, flags);
  }

  /** Writes `length` bytes of `batch` at `position`: the aligned part directly, the tail buffered. */
  async write(batch: BatchBuffer, length: number, position: number): Promise<void> {
    let done = 0;
    if (this.directFd !== null && batch.aligned && position % DIRECT_IO_ALIGN === 0) {
      const directBytes = length - (length % DIRECT_IO_ALIGN);
      if (directBytes > 0) {
        try {
          done = await writeAll(this.directFd, batch.view, 0, directBytes, position);
        } catch (e) {
          if (!isDirectIoRefusal(e)) throw e;
          // Refused after all (another device, another rule): buffered from now on.
          this.buffers.disableDirect();
          done = 0;
        }
      }
    }
    if (done < length) await writeAll(this.buffered(), batch.view, done, length - done, position + done);
  }

  close(): void {
    for (const fd of [this.directFd, this.bufferedFd]) if (fd !== null) closeSync(fd);
    this.directFd = this.bufferedFd = null;
  }

  private buffered(): number {
    this.bufferedFd ??= openSync(this.file, constants.O_WRONLY);
    return this.bufferedFd;
  }
}

/** Writes all `length` bytes (a short write continues where it stopped); returns `length`. */
async function writeAll(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const n = await new Promise<number>((resolve, reject) =>
      write(fd, buf, offset + done, length - done, position + done, (e, written) => (e ? reject(e) : resolve(written))),
    );
    if (n === 0) throw new Error(`no progress writing the block file at ${position + done}`);
    done += n;
  }
  return length;
}
