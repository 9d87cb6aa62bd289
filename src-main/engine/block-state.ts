import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { ETAG_UNIT_BYTES } from '../protocol/etag';
import type { BlockRecord } from './ports';
import { TransferFailure } from './errors';

const SHA1_BYTES = 20;

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
  private digests: Buffer[] = [];
  private unit: Hash = createHash('sha1');
  private unitFill = 0;

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
    this.digests = [];
    this.unit = createHash('sha1');
    this.unitFill = 0;
  }

  /**
   * Hashes the chunk that starts at nextOffset into copies of the hash state and returns
   * what `acknowledge` needs; the block's own state is untouched until then.
   */
  hashChunk(chunk: Uint8Array): { unit: Hash; unitFill: number; digests: Buffer[] } {
    let unit = this.unit.copy();
    let unitFill = this.unitFill;
    const digests = this.digests.slice();
    let pos = 0;
    while (pos < chunk.byteLength) {
      const take = Math.min(ETAG_UNIT_BYTES - unitFill, chunk.byteLength - pos);
      unit.update(chunk.subarray(pos, pos + take));
      unitFill += take;
      pos += take;
      if (unitFill === ETAG_UNIT_BYTES) {
        digests.push(unit.digest());
        unit = createHash('sha1');
        unitFill = 0;
      }
    }
    return { unit, unitFill, digests };
  }

  /** Commits a chunk the service acknowledged. At the block's end the partial unit is closed too. */
  acknowledge(
    nextOffset: number,
    ctx: string,
    hashed: { unit: Hash; unitFill: number; digests: Buffer[] },
    nowMs: number,
  ): void {
    this.nextOffset = nextOffset;
    this.lastCtx = ctx;
    if (this.startedMs === null) this.startedMs = nowMs;
    this.unit = hashed.unit;
    this.unitFill = hashed.unitFill;
    this.digests = hashed.digests;
    if (this.nextOffset === this.size && this.unitFill > 0) {
      this.digests.push(this.unit.digest());
      this.unit = createHash('sha1');
      this.unitFill = 0;
    }
  }

  /** Finished unit digests, concatenated (what the store keeps). */
  unitSha1s(): Buffer {
    return Buffer.concat(this.digests);
  }

  /** Digests of all units of a finished block, in order. */
  unitDigests(): readonly Buffer[] {
    if (!this.done) throw new Error(`block ${this.index} is not finished`);
    return this.digests;
  }

  /**
   * Restores a block from its stored row. Rebuilds the SHA1 state of the unfinished unit by
   * reading its acknowledged part back from the file (at most 4 MiB, nothing re-sent).
   * Returns false when the row is inconsistent and the block must start over.
   */
  async restore(row: BlockRecord, fh: FileHandle, scratch: Buffer): Promise<boolean> {
    this.reset();
    if (row.nextOffset <= 0 || row.lastCtx === null || row.nextOffset > this.size) return false;
    const stored = row.unitSha1s;
    if (stored.length % SHA1_BYTES !== 0) return false;
    const finished = row.nextOffset === this.size;
    const expectUnits = finished
      ? Math.ceil(this.size / ETAG_UNIT_BYTES)
      : Math.floor(row.nextOffset / ETAG_UNIT_BYTES);
    if (stored.length / SHA1_BYTES !== expectUnits) return false;
    const digests: Buffer[] = [];
    for (let i = 0; i < stored.length; i += SHA1_BYTES) digests.push(Buffer.from(stored.subarray(i, i + SHA1_BYTES)));
    const unit = createHash('sha1');
    let unitFill = 0;
    if (!finished) {
      const partStart = expectUnits * ETAG_UNIT_BYTES;
      let pos = partStart;
      while (pos < row.nextOffset) {
        const want = Math.min(scratch.length, row.nextOffset - pos);
        const { bytesRead } = await fh.read(scratch, 0, want, this.fileOffset + pos);
        if (bytesRead === 0)
          throw new TransferFailure('file-changed', 'the file became shorter while resuming its upload');
        unit.update(scratch.subarray(0, bytesRead));
        pos += bytesRead;
      }
      unitFill = row.nextOffset - partStart;
    }
    this.nextOffset = row.nextOffset;
    this.lastCtx = row.lastCtx;
    this.startedMs = row.ctxTimeMs;
    this.crcSoFar = undefined;
    this.digests = digests;
    this.unit = unit;
    this.unitFill = unitFill;
    return true;
  }
}
