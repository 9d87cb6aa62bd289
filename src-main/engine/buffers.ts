import { DIRECT_IO_ALIGN } from '../base/direct-io';

/**
 * Reused read buffers by size. A chunk takes one buffer of the size its sizer chose (a
 * power-of-two multiple of 256 KiB, so few sizes occur) only while its bytes are in flight
 * and gives it back after, so memory is bounded by the scheduler's bytes in flight, not by
 * file or block size. At most `keep` idle buffers are kept in all; with the default 4 MiB
 * blocks that is the same 8 × 4 MiB as when buffers were one fixed size. Each buffer is
 * DIRECT_IO_ALIGN bytes longer than asked, so a direct read can start at the offset whose
 * address O_DIRECT accepts (FileSource.readChunk).
 */
export class BufferPool {
  private readonly idle = new Map<number, Buffer[]>();
  private idleCount = 0;

  constructor(
    /** The size `take()` gives without an argument (scratch space for restoring blocks). */
    readonly bufferBytes: number,
    private readonly keep: number,
  ) {}

  /** A buffer for `bytes`: `bytes + DIRECT_IO_ALIGN` long. */
  take(bytes: number = this.bufferBytes): Buffer {
    const list = this.idle.get(bytes);
    const b = list?.pop();
    if (b) {
      this.idleCount--;
      return b;
    }
    return Buffer.allocUnsafeSlow(bytes + DIRECT_IO_ALIGN);
  }

  give(buf: Buffer): void {
    if (this.idleCount >= this.keep) return;
    const bytes = buf.length - DIRECT_IO_ALIGN;
    const list = this.idle.get(bytes) ?? [];
    list.push(buf);
    this.idle.set(bytes, list);
    this.idleCount++;
  }
}
