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

  constructor(
    /** The size `take()` gives without an argument (scratch space for restoring blocks). */
    readonly bufferBytes: number,
    private readonly keep: number,
  ) {}

  take(bytes: number = this.bufferBytes): Buffer {
    const list = this.idle.get(bytes);
    const b = list?.pop();
    if (b) {
      this.idleCount--;
      return b;
    }
    // A size the sizer moved to: idle buffers of other sizes are dropped, so idle and used
    // buffers together stay near the bytes in flight (issue 19: a wider window, same RSS).
    for (const [size, l] of this.idle) if (size !== bytes) this.idleCount -= l.splice(0).length;
    return Buffer.allocUnsafeSlow(bytes);
  }

  give(buf: Buffer): void {
    if (this.idleCount >= this.keep) return;
    const list = this.idle.get(buf.length) ?? [];
    list.push(buf);
    this.idle.set(buf.length, list);
    this.idleCount++;
  }
}
