import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ETAG_UNIT_BYTES,
  EtagAccumulator,
  etagFromUnitDigests,
  forEachUnitPiece,
} from '../../../src-main/protocol/etag';

const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest();
/** The unit digests computed the plain way: one SHA-1 per 4 MiB slice. */
const unitsOf = (b: Buffer) => {
  const out: Buffer[] = [];
  for (let p = 0; p < b.length; p += ETAG_UNIT_BYTES) out.push(sha1(b.subarray(p, p + ETAG_UNIT_BYTES)));
  return out;
};

describe('forEachUnitPiece', () => {
  it('cuts a run of bytes where units end, and says which pieces close their unit', () => {
    const seen: [number, number, boolean][] = [];
    const fill = forEachUnitPiece(ETAG_UNIT_BYTES - 10, 2 * ETAG_UNIT_BYTES + 5, (s, e, c) => seen.push([s, e, c]));
    expect(seen).toEqual([
      [0, 10, true],
      [10, 10 + ETAG_UNIT_BYTES, true],
      [10 + ETAG_UNIT_BYTES, 2 * ETAG_UNIT_BYTES + 5, false],
    ]);
    expect(fill).toBe(ETAG_UNIT_BYTES - 5);
    expect(forEachUnitPiece(0, 0, () => expect.unreachable())).toBe(0);
  });
});

describe('EtagAccumulator', () => {
  it('gives the plain per-unit SHA-1s whatever the piece sizes; a copy goes on alone', () => {
    const data = randomBytes(2 * ETAG_UNIT_BYTES + 77_777);
    const acc = new EtagAccumulator();
    let fork: EtagAccumulator | undefined;
    for (let pos = 0, i = 0; pos < data.length; i++) {
      const n = [1, 999_999, ETAG_UNIT_BYTES, 3 * 1024 * 1024 + 1][i % 4]!;
      acc.update(data.subarray(pos, pos + n));
      pos += n;
      if (!fork && pos > ETAG_UNIT_BYTES) {
        fork = acc.copy();
        fork.update(Buffer.from('something else'));
      }
    }
    const want = unitsOf(data);
    expect(acc.etag()).toBe(etagFromUnitDigests(want));
    acc.finishUnit();
    expect(acc.digests).toEqual(want);
    expect(fork!.digests).toEqual(want.slice(0, 1));
    expect(acc.takeDigests()).toEqual(want);
    expect(acc.digests).toEqual([]);
  });

  it('an empty content and one of exactly one unit have one digest each', () => {
    expect(new EtagAccumulator().etag()).toBe(etagFromUnitDigests([sha1(Buffer.alloc(0))]));
    const one = randomBytes(ETAG_UNIT_BYTES);
    const acc = new EtagAccumulator().update(one);
    expect(acc.unitFill).toBe(0);
    expect(acc.etag()).toBe(etagFromUnitDigests([sha1(one)]));
  });

  it('takes digests hashed elsewhere only on a unit boundary', () => {
    const acc = new EtagAccumulator();
    acc.addDigests([sha1(Buffer.from('a'))]);
    acc.update(Buffer.from('b'));
    expect(() => acc.addDigests([sha1(Buffer.from('c'))])).toThrow(/unit boundary/);
  });
});
