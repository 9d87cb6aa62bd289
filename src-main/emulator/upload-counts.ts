/**
 * What the chunk endpoints took in since the emulator started: counters for tests that bound
 * what a client sent (`GET /admin/counts`, `RunningEmulator.uploadCounts()`). Nothing reads
 * them to decide anything.
 */
export interface UploadCounts {
  /** mkblk requests that passed their checks and began their body (each made a block). */
  mkblk: number;
  /** bput requests whose ctx was accepted and which began their body. */
  bput: number;
  /** Body bytes of those requests read into blocks, counted as they arrive (a body cut off counts as far as it came). */
  chunkBytes: number;
  /**
   * Blocks for which a bput was refused (401) because its ctx was spent: the service took the
   * chunk after it, the client never kept that reply and must start the block again. Each
   * block counts once, however often its spent ctx comes back.
   */
  spentCtxBlocks: number;
}

export class UploadCounter {
  private readonly counts: UploadCounts = { mkblk: 0, bput: 0, chunkBytes: 0, spentCtxBlocks: 0 };
  /** The blocks counted in spentCtxBlocks (only blocks a client had to start again: few). */
  private readonly spent = new Set<string>();

  mkblk(): void {
    this.counts.mkblk++;
  }

  bput(): void {
    this.counts.bput++;
  }

  bytes(n: number): void {
    this.counts.chunkBytes += n;
  }

  spentCtx(blockId: string): void {
    if (this.spent.has(blockId)) return;
    this.spent.add(blockId);
    this.counts.spentCtxBlocks++;
  }

  snapshot(): UploadCounts {
    return { ...this.counts };
  }
}
