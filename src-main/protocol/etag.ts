import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { urlsafeB64Encode } from './base64';

/** The etag's fixed unit, whatever block size the upload used (protocol-notes). */
export const ETAG_UNIT_BYTES = 4 * 1024 * 1024;

const SINGLE_UNIT_PREFIX = 0x16;
const MULTI_UNIT_PREFIX = 0x96;

/**
 * Combines the SHA1 digests of the 4 MiB units of a content into its etag. `unitDigests`
 * are in content order; a content of at most one unit (the empty one included) has exactly
 * one digest, the SHA1 of the whole content.
 */
export function etagFromUnitDigests(unitDigests: readonly Uint8Array[]): string {
  if (unitDigests.length === 0) throw new RangeError('an etag needs at least one unit digest');
  if (unitDigests.length === 1) {
    return urlsafeB64Encode(Buffer.concat([Buffer.of(SINGLE_UNIT_PREFIX), unitDigests[0]!]));
  }
  const outer = createHash('sha1');
  for (const d of unitDigests) outer.update(d);
  return urlsafeB64Encode(Buffer.concat([Buffer.of(MULTI_UNIT_PREFIX), outer.digest()]));
}

/** Number of 4 MiB etag units of a content of `size` bytes (1 for the empty content). */
export function etagUnitCount(size: number): number {
  return Math.max(1, Math.ceil(size / ETAG_UNIT_BYTES));
}

/** Size of one unit digest (SHA-1). */
export const UNIT_DIGEST_BYTES = 20;

/**
 * Cuts `length` bytes that follow `unitFill` bytes of a unit into pieces that stay within
 * one etag unit: calls `visit(start, end, closesUnit)` for each, in order (`closesUnit`:
 * the piece fills its unit to 4 MiB). Returns the unit fill after them. The one place that
 * knows where units begin and end; `EtagAccumulator` and the emulator's hashing workers
 * (which hash what they are told, cut here) use it.
 */
export function forEachUnitPiece(
  unitFill: number,
  length: number,
  visit: (start: number, end: number, closesUnit: boolean) => void,
): number {
  let fill = unitFill;
  for (let pos = 0; pos < length;) {
    const take = Math.min(ETAG_UNIT_BYTES - fill, length - pos);
    fill += take;
    const closes = fill === ETAG_UNIT_BYTES;
    visit(pos, pos + take, closes);
    if (closes) fill = 0;
    pos += take;
  }
  return fill;
}

/**
 * The etag's unit SHA-1s over bytes given in order, in pieces of any size: the running
 * SHA-1 of the unit in progress and the 20-byte digests of the finished units. The one
 * accumulator behind the file etag (`EtagHasher`), the engine's blocks (engine/block-state.ts)
 * and the emulator's (emulator/unit-hasher.ts). `copy()` is cheap (a SHA-1 state and an
 * array of references), for hashing ahead of a commit.
 */
export class EtagAccumulator {
  private unit: Hash;
  private fill: number;
  private readonly finished: Buffer[];

  /** `digests`: units already finished (e.g. restored from a store); the next byte starts a unit. */
  constructor(digests: readonly Buffer[] = [], unit?: Hash, unitFill = 0) {
    this.finished = digests.slice();
    this.unit = unit ?? createHash('sha1');
    this.fill = unitFill;
  }

  /** Bytes of the unit in progress (0 on a unit boundary). */
  get unitFill(): number {
    return this.fill;
  }

  /** Digests of the finished units, in order (the accumulator's own array: do not change it). */
  get digests(): readonly Buffer[] {
    return this.finished;
  }

  update(data: Uint8Array): this {
    const n = data.byteLength;
    // The common case (a piece within the unit in progress) without a closure.
    if (this.fill + n < ETAG_UNIT_BYTES) {
      this.unit.update(data);
      this.fill += n;
      return this;
    }
    this.fill = forEachUnitPiece(this.fill, n, (start, end, closes) => {
      this.unit.update(start === 0 && end === n ? data : data.subarray(start, end));
      if (closes) this.closeUnit();
    });
    return this;
  }

  /** Takes the digests of whole units hashed elsewhere; only on a unit boundary. */
  addDigests(digests: readonly Buffer[]): void {
    if (this.fill !== 0)
      throw new Error(`unit digests hashed elsewhere must start on a unit boundary, not at ${this.fill}`);
    for (const d of digests) this.finished.push(d);
  }

  /** Ends the unit in progress, if any (a block's or the content's end). */
  finishUnit(): void {
    if (this.fill > 0) this.closeUnit();
  }

  /** Removes and returns the finished digests (what a store appends to a block's row). */
  takeDigests(): Buffer[] {
    return this.finished.splice(0);
  }

  /** An independent accumulator in the same state. */
  copy(): EtagAccumulator {
    return new EtagAccumulator(this.finished, this.unit.copy(), this.fill);
  }

  /** The etag of the bytes so far (the unit in progress, or an empty content, counted as a unit). */
  etag(): string {
    if (this.fill === 0 && this.finished.length > 0) return etagFromUnitDigests(this.finished);
    return etagFromUnitDigests([...this.finished, this.unit.copy().digest()]);
  }

  private closeUnit(): void {
    this.finished.push(this.unit.digest());
    this.unit = createHash('sha1');
    this.fill = 0;
  }
}

/** Streaming etag over bytes given in order, in pieces of any size (memory does not grow with the content). */
export class EtagHasher {
  private readonly acc = new EtagAccumulator();
  private total = 0;

  update(data: Uint8Array): this {
    this.acc.update(data);
    this.total += data.byteLength;
    return this;
  }

  get bytes(): number {
    return this.total;
  }

  digest(): string {
    return this.acc.etag();
  }
}

export function etagOfBuffer(data: Uint8Array): string {
  return new EtagHasher().update(data).digest();
}

/** Etag of a file, read with one reused 4 MiB buffer (no whole-file buffer). */
export async function etagOfFile(filePath: string, signal?: AbortSignal): Promise<{ etag: string; size: number }> {
  const fh = await open(filePath, 'r');
  try {
    const buf = Buffer.allocUnsafe(ETAG_UNIT_BYTES);
    const hasher = new EtagHasher();
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hasher.update(buf.subarray(0, bytesRead));
    }
    return { etag: hasher.digest(), size: hasher.bytes };
  } finally {
    await fh.close();
  }
}
