import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ETAG_UNIT_BYTES, etagFromUnitDigests, etagOfBuffer } from '../../../src-main/protocol/etag';
import { BlockUnitHasher, splitDigests } from '../../../src-main/emulator/unit-hasher';

const MiB = 1024 * 1024;

/** Feeds `data` in pieces of `pieceBytes`, as chunks arriving would. */
function digestsOf(data: Buffer, pieceBytes: number): Buffer[] {
  const h = new BlockUnitHasher(0);
  const out: Buffer[] = [];
  for (let pos = 0; pos < data.length; pos += pieceBytes) {
    h.update(data.subarray(pos, pos + pieceBytes));
    out.push(h.takeFinished());
  }
  h.finishBlock();
  out.push(h.takeFinished());
  return splitDigests(Buffer.concat(out));
}

describe('emulator: BlockUnitHasher (etag unit SHA1s while chunks arrive)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('gives the etag of the content whatever the piece sizes, across unit boundaries', () => {
    const data = randomBytes(2 * ETAG_UNIT_BYTES + 12345);
    for (const piece of [1000, 3 * MiB, ETAG_UNIT_BYTES, 5 * MiB + 7]) {
      const digests = digestsOf(data, piece);
      expect(digests).toHaveLength(3);
      expect(etagFromUnitDigests(digests)).toBe(etagOfBuffer(data));
    }
  });

  it('a block ending on a unit boundary adds no empty-unit digest', () => {
    const data = randomBytes(ETAG_UNIT_BYTES);
    expect(digestsOf(data, MiB)).toHaveLength(1);
    expect(etagFromUnitDigests(digestsOf(data, MiB))).toBe(etagOfBuffer(data));
  });

  it('rebuilds the unit in progress from the block file (re-reading only that unit)', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bl-unit-'));
    const data = randomBytes(ETAG_UNIT_BYTES + 3 * MiB);
    const file = path.join(dir, 'block');
    // Bytes past the committed size are garbage from a cut chunk and must be ignored.
    writeFileSync(file, Buffer.concat([data.subarray(0, ETAG_UNIT_BYTES + MiB), randomBytes(500)]));
    const h = await BlockUnitHasher.rebuild(file, 0, ETAG_UNIT_BYTES + MiB);
    expect(h.at).toBe(ETAG_UNIT_BYTES + MiB);
    expect(h.takeFinished()).toHaveLength(0);
    h.update(data.subarray(ETAG_UNIT_BYTES + MiB));
    h.finishBlock();
    const first = digestsOf(data.subarray(0, ETAG_UNIT_BYTES), MiB);
    expect(etagFromUnitDigests([...first, ...splitDigests(h.takeFinished())])).toBe(etagOfBuffer(data));
  });

  it('refuses to start off a unit boundary, and a rebuild of a short file says so', async () => {
    expect(() => new BlockUnitHasher(10)).toThrow(RangeError);
    dir = await mkdtemp(path.join(os.tmpdir(), 'bl-unit-'));
    const file = path.join(dir, 'short');
    writeFileSync(file, randomBytes(100));
    await expect(BlockUnitHasher.rebuild(file, 0, 200)).rejects.toThrow(/shorter than its committed 200 bytes/);
  });
  it('takes units hashed elsewhere on a unit boundary, then goes on hashing here', () => {
    const data = randomBytes(2 * ETAG_UNIT_BYTES + MiB);
    const sha1 = (b: Buffer) => createHash('sha1').update(b).digest();
    const h = new BlockUnitHasher(0);
    expect(h.atUnitBoundary).toBe(true);
    h.addUnits(sha1(data.subarray(0, ETAG_UNIT_BYTES)), ETAG_UNIT_BYTES);
    h.update(data.subarray(ETAG_UNIT_BYTES, ETAG_UNIT_BYTES + 10));
    expect(h.atUnitBoundary).toBe(false);
    expect(() => h.addUnits(Buffer.alloc(20), ETAG_UNIT_BYTES)).toThrow(/unit boundary/);
    h.update(data.subarray(ETAG_UNIT_BYTES + 10));
    h.finishBlock();
    expect(h.at).toBe(data.length);
    expect(etagFromUnitDigests(splitDigests(h.takeFinished()))).toBe(etagOfBuffer(data));
    expect(() => new BlockUnitHasher(0).addUnits(Buffer.alloc(20), 2 * ETAG_UNIT_BYTES)).toThrow(RangeError);
  });
});
