/**
 * CRC-32 (the zlib / IEEE polynomial, as node:zlib's crc32) of A followed by B, from
 * crc(A), crc(B) and B's length: zlib's crc32_combine (GF(2) matrix method), so the CRC of a
 * block so far needs no second pass over each chunk. Costs O(log lenB) 32×32 bit-matrix
 * squarings: microseconds per chunk.
 */
const POLY = 0xedb88320;

function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i]!;
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]!);
}

export function crc32Combine(crcA: number, crcB: number, lenB: number): number {
  if (!Number.isSafeInteger(lenB) || lenB < 0)
    throw new RangeError(`length must be a whole number of bytes, not ${lenB}`);
  if (lenB === 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  // The operator for one zero bit, then two, then four.
  odd[0] = POLY;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  gf2Square(even, odd);
  gf2Square(odd, even);
  let crc = crcA >>> 0;
  let len = lenB;
  do {
    gf2Square(even, odd);
    if (len % 2) crc = gf2Times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    gf2Square(odd, even);
    if (len % 2) crc = gf2Times(odd, crc);
    len = Math.floor(len / 2);
  } while (len !== 0);
  return (crc ^ crcB) >>> 0;
}
