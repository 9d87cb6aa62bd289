import { createRequire } from 'node:module';
import { crc32 as zlibCrc32 } from 'node:zlib';

/**
 * The one CRC-32 (IEEE 802.3, zlib's) of the app: the client's per-chunk check and block
 * CRC (protocol/client.ts, engine/) and the emulator's (hash-pool.ts, whose workers load the
 * same module by `crc32ModuleFile`). @node-rs/crc32 (napi-rs, a prebuilt addon per platform,
 * SIMD with pclmulqdq) where it loads, about 2.7 times as fast as node:zlib's on this
 * machine's CPU (0.08 against 0.22 CPU-s per GiB); node:zlib's crc32 where it does not (a
 * platform without a prebuilt addon, a package that lacks it). Both give the same values.
 * `BLOCKLIFT_NO_NATIVE_CRC32=1` forces node:zlib's (the tests check both).
 */

/** CRC-32 of `data` continuing from `initial` (0 for a fresh one); unsigned. */
export type Crc32 = (data: Uint8Array, initial?: number) => number;

interface NativeCrc32Module {
  crc32(input: Uint8Array, initialState?: number | null): number;
}

/** The check value of CRC-32 (IEEE): the CRC of the ASCII digits 1…9. */
const CHECK_INPUT = Buffer.from('123456789');
const CHECK_VALUE = 0xcbf43926;

function nativeDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BLOCKLIFT_NO_NATIVE_CRC32;
  return v !== undefined && v !== '' && v !== '0';
}

async function loadNative(): Promise<NativeCrc32Module | null> {
  if (nativeDisabledByEnv()) return null;
  try {
    const m = (await import('@node-rs/crc32')) as NativeCrc32Module & { default?: NativeCrc32Module };
    const mod = typeof m.crc32 === 'function' ? m : m.default;
    // An addon that loads but computes something else is not used.
    if (!mod || mod.crc32(CHECK_INPUT) >>> 0 !== CHECK_VALUE) return null;
    return mod;
  } catch {
    return null; // no prebuilt addon for this platform, or the package is missing
  }
}

const native = await loadNative();

/** Which implementation `crc32` uses. */
export const crc32Implementation: 'native' | 'zlib' = native ? 'native' : 'zlib';

/**
 * node:zlib's crc32, except for an empty input: zlib returns 0 for an empty buffer whose
 * memory is a null pointer (`crc32(randomBytes(0), 1)` is 0), where the CRC of nothing
 * continuing from `initial` is `initial`.
 */
export const zlibCrc32Exact: Crc32 = (data, initial = 0) =>
  data.length === 0 ? initial >>> 0 : zlibCrc32(data, initial) >>> 0;

/** CRC-32 of `data` continuing from `initial` (0 for a fresh one); unsigned. */
export const crc32: Crc32 = native ? (data, initial = 0) => native.crc32(data, initial) >>> 0 : zlibCrc32Exact;

/**
 * The file a worker thread can `require` for the same native CRC-32 (its own module
 * instance), or null when this process uses node:zlib's.
 */
export function crc32ModuleFile(): string | null {
  if (!native) return null;
  try {
    return createRequire(import.meta.url).resolve('@node-rs/crc32');
  } catch {
    return null;
  }
}
