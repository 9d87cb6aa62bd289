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

/**
 * Streaming etag over bytes given in order, in pieces of any size. Holds one SHA1 state
 * and the 20-byte digests of finished units: memory does not grow with the content.
 */
export class EtagHasher {
  private readonly unitDigests: Buffer[] = [];
  private unit: Hash = createHash('sha1');
  private unitFill = 0;
  private total = 0;

  update(data: Uint8Array): this {
    let pos = 0;
    while (pos < data.byteLength) {
      const take = Math.min(ETAG_UNIT_BYTES - this.unitFill, data.byteLength - pos);
      this.unit.update(data.subarray(pos, pos + take));
      this.unitFill += take;
      pos += take;
      if (this.unitFill === ETAG_UNIT_BYTES) {
        this.unitDigests.push(this.unit.digest());
        this.unit = createHash('sha1');
        this.unitFill = 0;
      }
    }
    this.total += data.byteLength;
    return this;
  }

  get bytes(): number {
    return this.total;
  }

  digest(): string {
    const digests = [...this.unitDigests];
    if (this.unitFill > 0 || digests.length === 0) digests.push(this.unit.copy().digest());
    return etagFromUnitDigests(digests);
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
