/**
 * Reused read buffers by size. A chunk takes one buffer of the size its sizer chose (a
 * power-of-two multiple of 256 KiB, so few sizes occur) only while its bytes are in flight
 * and gives it back after, so memory is bounded by the scheduler's bytes in flight, not by
 * file or block size. At most `keep` idle buffers are kept in all; with the default 4 MiB
 * blocks that is the same 8 × 4 MiB as when buffers were one fixed size.
 */
export class BufferPool {
  private readonly idle = new Map<number, Buffer[]>();
  private idleCount = 0;
  private idleBytes = 0;
  private usedBytes = 0;

  constructor(
    /** The size `take()` gives without an argument (scratch space for restoring blocks). */
    readonly bufferBytes: number,
    private readonly keep: number,
    /**
     * Idle and used buffers together are kept under this many bytes (issue 19: the chunk
     * size may change while many requests are out; idle buffers of the old size must not
     * add to the bytes in flight). Default no bound but `keep`.
     */
    private readonly maxBytes = Infinity,
  ) {}

  take(bytes: number = this.bufferBytes): Buffer {
    this.usedBytes += bytes;
    const list = this.idle.get(bytes);
    const b = list?.pop();
    if (b) {
      this.idleCount--;
      this.idleBytes -= b.length;
      return b;
    }
    return Buffer.allocUnsafeSlow(bytes);
  }

  give(buf: Buffer): void {
    this.usedBytes -= buf.length;
    if (this.idleCount >= this.keep || this.idleBytes + this.usedBytes + buf.length > this.maxBytes) return;
    this.idleBytes += buf.length;
    const list = this.idle.get(buf.length) ?? [];
    list.push(buf);
    this.idle.set(buf.length, list);
    this.idleCount++;
  }
}
