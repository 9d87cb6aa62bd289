import { ETAG_UNIT_BYTES, EtagAccumulator, UNIT_DIGEST_BYTES } from '../protocol/etag';
import type { FileSource } from './file-source';
import type { BlockRecord } from './ports';

/**
 * One block as the engine holds it while uploading: where it is in the file, how much the
 * service has acknowledged, the ctx for the next chunk, and the etag units hashed so far.
 * The hash state always matches `nextOffset`: hashing a chunk is only committed together
 * with its acknowledgement (see `hashChunk` / `acknowledge`).
 */
export class BlockState {
  nextOffset = 0;
  lastCtx: string | null = null;
  /** When this block's first chunk (mkblk) was acknowledged; the purge age counts from it. */
  startedMs: number | null = null;
  /**
   * CRC-32 of the acknowledged part of the block, kept only once the service has shown it
   * answers block-so-far CRCs (see UploadDeps.crc); undefined when not known.
   */
  crcSoFar: number | undefined = undefined;
  private units = new EtagAccumulator();

  constructor(
    readonly index: number,
    /** File offset of the block's first byte; a multiple of 4 MiB. */
    readonly fileOffset: number,
    readonly size: number,
  ) {}

  get done(): boolean {
    return this.nextOffset === this.size && this.lastCtx !== null;
  }

  /** Forgets everything sent (the ctx was refused or the block purged). */
  reset(): void {
    this.nextOffset = 0;
    this.lastCtx = null;
    this.startedMs = null;
    this.crcSoFar = 0;
    this.units = new EtagAccumulator();
  }

  /**
   * Hashes the chunk that starts at nextOffset into a copy of the hash state and returns
   * what `acknowledge` needs; the block's own state is untouched until then.
   */
  hashChunk(chunk: Uint8Array): EtagAccumulator {
    return this.units.copy().update(chunk);
  }

  /** Commits a chunk the service acknowledged. At the block's end the partial unit is closed too. */
  acknowledge(nextOffset: number, ctx: string, hashed: EtagAccumulator, nowMs: number): void {
    this.nextOffset = nextOffset;
    this.lastCtx = ctx;
    if (this.startedMs === null) this.startedMs = nowMs;
    this.units = hashed;
    if (this.nextOffset === this.size) this.units.finishUnit();
  }

  /** Finished unit digests, concatenated (what the store keeps). */
  unitSha1s(): Buffer {
    return Buffer.concat(this.units.digests);
  }

  /** Digests of all units of a finished block, in order. */
  unitDigests(): readonly Buffer[] {
    if (!this.done) throw new Error(`block ${this.index} is not finished`);
    return this.units.digests;
  }

  /**
   * Restores a block from its stored row. Rebuilds the SHA1 state of the unfinished unit by
   * reading its acknowledged part back from the file (at most 4 MiB, nothing re-sent).
   * Returns false when the row is inconsistent and the block must start over. A file that
   * ends before the part to read fails as `FileSource.readAt` says (file-changed, with the
   * size the upload planned and the size it has now), like the same end met while sending.
   */
  async restore(row: BlockRecord, file: FileSource, scratch: Buffer): Promise<boolean> {
    this.reset();
    if (row.nextOffset <= 0 || row.lastCtx === null || row.nextOffset > this.size) return false;
    const stored = row.unitSha1s;
    if (stored.length % UNIT_DIGEST_BYTES !== 0) return false;
    const finished = row.nextOffset === this.size;
    const expectUnits = finished
      ? Math.ceil(this.size / ETAG_UNIT_BYTES)
      : Math.floor(row.nextOffset / ETAG_UNIT_BYTES);
    if (stored.length / UNIT_DIGEST_BYTES !== expectUnits) return false;
    const digests: Buffer[] = [];
    for (let i = 0; i < stored.length; i += UNIT_DIGEST_BYTES)
      digests.push(Buffer.from(stored.subarray(i, i + UNIT_DIGEST_BYTES)));
    const units = new EtagAccumulator(digests);
    if (!finished) {
      const partStart = expectUnits * ETAG_UNIT_BYTES;
      let pos = partStart;
      while (pos < row.nextOffset) {
        const part = scratch.subarray(0, Math.min(scratch.length, row.nextOffset - pos));
        await file.readAt(part, this.fileOffset + pos);
        units.update(part);
        pos += part.length;
      }
    }
    this.nextOffset = row.nextOffset;
    this.lastCtx = row.lastCtx;
    this.startedMs = row.ctxTimeMs;
    this.crcSoFar = undefined;
    this.units = units;
    return true;
  }
}
