import { constants } from 'node:fs';

/**
 * O_DIRECT, shared by the engine's reads (engine/file-source.ts) and the emulator's block
 * writes (emulator/direct-io.ts). A direct read or write moves the bytes between the disk
 * and the process's memory without a copy through the page cache. The kernel wants the
 * file position, the length and the memory's address aligned; JavaScript cannot see
 * addresses, so a buffer is allocated DIRECT_IO_ALIGN bytes longer than needed and probed
 * once for the offset at which a direct call is accepted.
 */

/** Position, length and memory alignment used for direct I/O (covers 512-byte and 4 KiB sectors). */
export const DIRECT_IO_ALIGN = 4096;

/** The O_DIRECT open flag; undefined where the platform has none (macOS, Windows). */
export const O_DIRECT: number | undefined = (constants as { O_DIRECT?: number }).O_DIRECT;

/** Memory alignment steps tried by the probe (allocators align to at least 16 bytes). */
const PROBE_STEP = 16;

/**
 * The offsets below DIRECT_IO_ALIGN a probe tries, in steps of 16 bytes, likeliest first:
 * 0 (memory already aligned), then DIRECT_IO_ALIGN − 16 (a large buffer from glibc's malloc
 * is its own mapping, a page plus 16 bytes of header: 4080 bytes in is a page boundary), then
 * the others.
 */
export function* alignmentCandidates(): Generator<number> {
  yield 0;
  yield DIRECT_IO_ALIGN - PROBE_STEP;
  for (let off = PROBE_STEP; off < DIRECT_IO_ALIGN - PROBE_STEP; off += PROBE_STEP) yield off;
}

/**
 * The first of `alignmentCandidates()` at which `accepts(offset)` returns true, or null when
 * none does. `accepts` makes one direct call from that offset of the buffer and returns false
 * when the kernel refuses it (EINVAL); any other error is its caller's. Up to 256 refused
 * calls, each an exception: they are made without stack traces, which were most of their
 * cost. Synchronous, for the emulator's writes; the engine's reads probe asynchronously
 * (engine/file-source.ts) over the same candidates.
 */
export function probeAlignedOffset(accepts: (offset: number) => boolean): number | null {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (const off of alignmentCandidates()) if (accepts(off)) return off;
  } finally {
    Error.stackTraceLimit = limit;
  }
  return null;
}

/** True for the error the kernel gives a direct call it cannot make as asked (alignment, or no O_DIRECT here). */
export function isDirectIoRefusal(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'EINVAL';
}

/** `n` rounded up to a multiple of DIRECT_IO_ALIGN. */
export function alignUp(n: number): number {
  return Math.ceil(n / DIRECT_IO_ALIGN) * DIRECT_IO_ALIGN;
}
