import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Crc32Module from '../../../src-main/base/crc32';

/** base/crc32.ts loaded afresh, with or without the native module. */
async function load(native: boolean): Promise<typeof Crc32Module> {
  vi.resetModules();
  vi.stubEnv('BLOCKLIFT_NO_NATIVE_CRC32', native ? '' : '1');
  return import('../../../src-main/base/crc32');
}

/** Sizes around the ones SIMD code paths switch at, and chunk-like ones. */
const SIZES = [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 4095, 4096, 4097];
const LARGE = [65_535, 65_536, 1024 * 1024 + 13, 4 * 1024 * 1024];
const INITIALS = [0, 1, 0x7fffffff, 0xffffffff, 0xcbf43926];

describe('base/crc32', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('loads @node-rs/crc32 here, and node:zlib when told not to', async () => {
    const native = await load(true);
    expect(native.crc32Implementation).toBe('native');
    expect(native.crc32ModuleFile()).toMatch(/@node-rs[\\/]crc32[\\/]index\.js$/);
    const zlib = await load(false);
    expect(zlib.crc32Implementation).toBe('zlib');
    expect(zlib.crc32ModuleFile()).toBeNull();
  });

  for (const native of [true, false]) {
    it(`${native ? 'native' : 'node:zlib'}: equals node:zlib's crc32 on random buffers, edge sizes and offsets, from any initial value`, async () => {
      const { crc32 } = await load(native);
      expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
      for (const n of [...SIZES, ...LARGE]) {
        const b = randomBytes(n + 5);
        for (const init of INITIALS) {
          const body = b.subarray(0, n);
          expect(crc32(body, init)).toBe(zlibCrc32(body, init) >>> 0);
          // A view that starts at an odd address.
          const odd = b.subarray(3, 3 + n);
          expect(crc32(odd, init)).toBe(zlibCrc32(odd, init) >>> 0);
        }
      }
      for (let i = 0; i < 300; i++) {
        const b = randomBytes(1 + Math.floor(Math.random() * 70_000));
        const init = Math.floor(Math.random() * 2 ** 32);
        expect(crc32(b, init)).toBe(zlibCrc32(b, init) >>> 0);
      }
      // Continuing over pieces equals one pass; a Uint8Array view over a SharedArrayBuffer too.
      const whole = randomBytes(3 * 65_536 + 77);
      let c = 0;
      for (let p = 0; p < whole.length; p += 10_000) c = crc32(whole.subarray(p, p + 10_000), c);
      expect(c).toBe(zlibCrc32(whole) >>> 0);
      const sab = new SharedArrayBuffer(whole.length + 9);
      new Uint8Array(sab, 9).set(whole);
      expect(crc32(new Uint8Array(sab, 9, whole.length))).toBe(zlibCrc32(whole) >>> 0);
    });

    it(`${native ? 'native' : 'node:zlib'}: the CRC of nothing is the initial value (node:zlib gives 0 for some empty buffers)`, async () => {
      const { crc32 } = await load(native);
      for (const empty of [Buffer.alloc(0), randomBytes(0), new Uint8Array(0), randomBytes(8).subarray(4, 4)])
        for (const init of INITIALS) expect(crc32(empty, init)).toBe(init >>> 0);
    });
  }
});
