import { ETAG_UNIT_BYTES } from '../protocol/etag';

/** Block and chunk sizes (design.md "Upload engine essentials"). */
export const DEFAULT_BLOCK_SIZE_BYTES = 4 * 1024 * 1024;
export const MIN_CHUNK_SIZE_BYTES = 256 * 1024;
/** Largest block size accepted from a user (the protocol allows any multiple of 4 MiB). */
export const MAX_BLOCK_SIZE_BYTES = 1024 * 1024 * 1024;

export class PlanError extends Error {
  override readonly name = 'PlanError';
}

export function checkBlockSize(blockSizeBytes: number): void {
  if (
    !Number.isSafeInteger(blockSizeBytes) ||
    blockSizeBytes <= 0 ||
    blockSizeBytes % ETAG_UNIT_BYTES !== 0 ||
    blockSizeBytes > MAX_BLOCK_SIZE_BYTES
  ) {
    throw new PlanError(`block size must be a multiple of 4 MiB up to 1 GiB, not ${blockSizeBytes} bytes`);
  }
}

/**
 * Sizes of the blocks of a file: full blocks then the remainder. An empty file has no
 * block (mkfile/0 with an empty ctx list).
 */
export function planBlocks(fileSizeBytes: number, blockSizeBytes: number): number[] {
  checkBlockSize(blockSizeBytes);
  if (!Number.isSafeInteger(fileSizeBytes) || fileSizeBytes < 0)
    throw new PlanError(`file size must be 0 or more bytes, not ${fileSizeBytes}`);
  const sizes: number[] = [];
  for (let start = 0; start < fileSizeBytes; start += blockSizeBytes)
    sizes.push(Math.min(blockSizeBytes, fileSizeBytes - start));
  return sizes;
}

/**
 * The largest chunk of a transfer: its block size (a chunk never spans blocks), or less
 * when the engine sets maxChunkBytes.
 */
export function chunkLimitBytes(blockSizeBytes: number, maxChunkBytes?: number): number {
  return Math.max(1, Math.min(blockSizeBytes, maxChunkBytes ?? blockSizeBytes));
}

/** The first chunk of an adaptive transfer: 4 MiB, or its limit when smaller. */
export const INITIAL_CHUNK_SIZE_BYTES = 4 * 1024 * 1024;

/**
 * Chooses the next chunk size from measured throughput: it aims for chunks that take about
 * `targetChunkMs` each, doubling or halving, within [MIN_CHUNK_SIZE_BYTES, maxBytes] (see chunkLimitBytes). One instance per transfer
 * (so a transfer's block size bounds it), or one fixed instance shared by all.
 * Small chunks keep progress and resume waste small on slow links; large chunks keep the
 * per-request cost low on fast ones.
 */
export class ChunkSizer {
  private current: number;
  readonly minBytes: number;
  readonly maxBytes: number;

  constructor(opts: {
    initialBytes?: number;
    minBytes?: number;
    maxBytes: number;
    targetChunkMs?: number;
    fixed?: boolean;
  }) {
    this.minBytes = Math.min(opts.minBytes ?? MIN_CHUNK_SIZE_BYTES, opts.maxBytes);
    this.maxBytes = opts.maxBytes;
    this.current = clamp(opts.initialBytes ?? opts.maxBytes, this.minBytes, this.maxBytes);
    this.targetChunkMs = opts.targetChunkMs ?? 2000;
    this.fixed = opts.fixed ?? false;
  }

  private readonly targetChunkMs: number;
  private readonly fixed: boolean;

  get chunkBytes(): number {
    return this.current;
  }

  /** Records that a chunk of `bytes` took `elapsedMs` (request sent to reply received). */
  observe(bytes: number, elapsedMs: number): void {
    if (this.fixed || bytes < this.current / 2) return; // a short tail chunk says little
    if (elapsedMs < this.targetChunkMs / 2) this.current = Math.min(this.maxBytes, this.current * 2);
    else if (elapsedMs > this.targetChunkMs * 2) this.current = Math.max(this.minBytes, Math.floor(this.current / 2));
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}
