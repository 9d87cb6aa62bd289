import { open } from 'node:fs/promises';
import { ETAG_UNIT_BYTES, EtagAccumulator, UNIT_DIGEST_BYTES } from '../protocol/etag';

export { UNIT_DIGEST_BYTES };

/**
 * The etag's per-4-MiB-unit SHA1s of one block, computed while its chunks arrive (the
 * protocol's `EtagAccumulator`, and where in the block it is). Every block but a file's
 * last is a multiple of 4 MiB, so units never straddle blocks: a block's units start at
 * block offsets 0, 4 MiB, 8 MiB… Holds the running SHA1 of the unit in progress and the
 * digests finished since the last `takeFinished()`.
 *
 * Valid only while `at` equals the block's committed size; a chunk that fails part way
 * leaves it ahead of the committed state, so the owner drops it and `rebuild`s it.
 */
export class BlockUnitHasher {
  private readonly units = new EtagAccumulator();
  /** Block offset up to which bytes have been fed. */
  at: number;

  constructor(at: number) {
    this.at = at;
    if (at % ETAG_UNIT_BYTES !== 0)
      throw new RangeError(`a unit hasher starts on a unit boundary, not at ${at}; use BlockUnitHasher.rebuild`);
  }

  /** A hasher for a block holding `committedBytes` in `file` from `baseOffset` on: re-reads only the unfinished unit. */
  static async rebuild(file: string, baseOffset: number, committedBytes: number): Promise<BlockUnitHasher> {
    const fill = committedBytes % ETAG_UNIT_BYTES;
    const h = new BlockUnitHasher(committedBytes - fill);
    if (fill === 0) return h;
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(fill);
      const { bytesRead } = await fh.read(buf, 0, fill, baseOffset + committedBytes - fill);
      if (bytesRead !== fill)
        throw new Error(`block file ${file} is shorter than its committed ${committedBytes} bytes`);
      h.update(buf);
    } finally {
      await fh.close();
    }
    return h;
  }

  update(piece: Uint8Array): void {
    this.units.update(piece);
    this.at += piece.byteLength;
  }

  /** No unit is in progress: the next byte starts a unit (its SHA1 may be computed elsewhere, see `addUnits`). */
  get atUnitBoundary(): boolean {
    return this.units.unitFill === 0;
  }

  /**
   * Takes the SHA1s of units hashed elsewhere (a hashing worker): `digests` of the `bytes`
   * that follow, which start on a unit boundary and are whole units (or end the block).
   */
  addUnits(digests: Uint8Array, bytes: number): void {
    const count = digests.byteLength / UNIT_DIGEST_BYTES;
    if (count !== Math.ceil(bytes / ETAG_UNIT_BYTES))
      throw new RangeError(`${count} unit digests for ${bytes} bytes (expected ${Math.ceil(bytes / ETAG_UNIT_BYTES)})`);
    this.units.addDigests(splitDigests(digests));
    this.at += bytes;
  }

  /** Closes the unit in progress (the block's end); a block ending on a unit boundary adds nothing. */
  finishBlock(): void {
    this.units.finishUnit();
  }

  /** The digests finished since the last call, concatenated (to append to the block's row). */
  takeFinished(): Buffer {
    const done = this.units.takeDigests();
    return done.length === 1 ? done[0]! : Buffer.concat(done);
  }
}

/** Number of unit digests a complete block of `blockSize` bytes has. */
export function unitsOfBlock(blockSize: number): number {
  return Math.ceil(blockSize / ETAG_UNIT_BYTES);
}

/** Splits concatenated 20-byte digests (views of the same memory). */
export function splitDigests(concatenated: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  const b = Buffer.from(concatenated.buffer, concatenated.byteOffset, concatenated.byteLength);
  for (let i = 0; i + UNIT_DIGEST_BYTES <= b.length; i += UNIT_DIGEST_BYTES)
    out.push(b.subarray(i, i + UNIT_DIGEST_BYTES));
  return out;
}
