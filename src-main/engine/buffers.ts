/**
 * Reused read buffers of one fixed size (the largest chunk). A block worker takes one for
 * the block's life and gives it back; at most `keep` idle buffers are kept, so memory is
 * bounded by the blocks in flight, not by file size.
 */
export class BufferPool {
  private readonly idle: Buffer[] = [];

  constructor(
    readonly bufferBytes: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  give(buf: Buffer): void {
    if (buf.length === this.bufferBytes && this.idle.length < this.keep) this.idle.push(buf);
  }
}
