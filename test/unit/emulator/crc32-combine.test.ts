import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../../src-main/emulator/crc32-combine';

describe('emulator: crc32Combine', () => {
  it('equals the CRC-32 of the concatenation, for many split points and sizes', () => {
    const data = randomBytes(300_000);
    for (const [a, b] of [
      [0, 10],
      [1, 1],
      [7, 300_000],
      [65_536, 131_072],
      [299_999, 300_000],
      [123, 123],
    ] as const) {
      const left = data.subarray(0, a);
      const right = data.subarray(a, b);
      expect(crc32Combine(crc32(left), crc32(right), right.length)).toBe(crc32(data.subarray(0, b)));
    }
  });

  it('refuses a length that is not a whole number of bytes', () => {
    expect(() => crc32Combine(1, 2, -1)).toThrow(RangeError);
    expect(() => crc32Combine(1, 2, 1.5)).toThrow(RangeError);
  });
});
