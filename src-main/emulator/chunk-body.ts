import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32Combine } from './crc32-combine';
import { BATCH_BUFFER_BYTES, type BatchBuffer, type BatchBuffers, BlockFileWriter } from './direct-io';
import type { HashPool } from './hash-pool';
import type { BlockUnitHasher } from './unit-hasher';
import { ETAG_UNIT_BYTES } from '../protocol/etag';
import { HttpError } from './http-util';

export interface ChunkReceipt {
  bytes: number;
  /** Lowercase hex MD5 of the body. */
  md5Hex: string;
  /** Unsigned CRC-32 of the body alone. */
  crc32: number;
  /** CRC-32 of the block so far (blockCrcBefore continued over the body). */
  blockCrc32: number;
}

export interface ReceiveChunkOptions {
  /** File of the block; must exist unless `create`. The body is written at `position`. */
  file: string;
  /** Create (or empty) the file: the block's first chunk into a file of its own. */
  create?: boolean;
  position: number;
  /** The body must be exactly this long (the request's Content-Length). */
  declaredBytes: number;
  blockCrcBefore: number;
  /** Computes the body's MD5 and CRC-32 off the request thread. */
  hashes: HashPool;
  /** The batch buffers the body is copied into (moved to the hashing workers and back, aligned for direct writes). */
  buffers: BatchBuffers;
  /**
   * The block's etag unit SHA1s, at the block's committed size: fed the body. When the body
   * starts on a unit boundary, the hashing worker computes the SHA1s of its whole units and
   * only the start of a unit the next chunk continues is hashed here.
   */
  units: BlockUnitHasher;
  /** The body is the block's last chunk. */
  endsBlock: boolean;
  /** Fault injection: read no faster than this. */
  bandwidthBytesPerSec?: number;
  /** Fault injection: destroy the connection once this many bytes have arrived. */
  resetAfterBytes?: number;
  /** Told each piece's length as it arrives (the emulator's upload counts). */
  onBytes?: (bytes: number) => void;
}

/**
 * Streams a chunk's request body into its block file, hashing it on the way. Rejects with
 * HttpError 400 when the body ends before its Content-Length, and with a ChunkResetError
 * when fault injection cut the connection; on rejection the block's committed state is
 * untouched (bytes written past the committed offset are overwritten by the next chunk).
 */
export async function receiveChunk(req: IncomingMessage, o: ReceiveChunkOptions): Promise<ChunkReceipt> {
  const out = new BlockFileWriter(o.file, o.create === true, o.buffers);
  const unitsInWorker = o.units.atUnitBoundary;
  const job = o.hashes.begin(unitsInWorker);
  let received = 0;
  let written = 0;
  /** The batch being filled; taken when bytes arrive for it (a body's last flush takes none). */
  let batch: BatchBuffer | null = null;
  let fill = 0;
  const startedMs = Date.now();
  // The batch is written to the file, then moved (not copied) to a hashing worker, which
  // gives it back with the digests.
  const flush = async () => {
    if (fill === 0 || batch === null) return;
    const current = batch;
    const length = fill;
    batch = null;
    fill = 0;
    if (!unitsInWorker) o.units.update(current.view.subarray(0, length));
    await out.write(current, length, o.position + written);
    written += length;
    job.update(current, length);
  };
  try {
    try {
      for await (const piece of req as AsyncIterable<Buffer>) {
        received += piece.length;
        o.onBytes?.(piece.length);
        if (received > o.declaredBytes)
          throw new HttpError(400, `request body is longer than its Content-Length of ${o.declaredBytes}`);
        for (let pos = 0; pos < piece.length;) {
          batch ??= o.buffers.take();
          const take = Math.min(batch.view.length - fill, piece.length - pos);
          piece.copy(batch.view, fill, pos, pos + take);
          fill += take;
          pos += take;
          if (fill === batch.view.length) await flush();
        }
        if (o.resetAfterBytes !== undefined && received >= o.resetAfterBytes) {
          req.socket.destroy();
          throw new ChunkResetError();
        }
        if (o.bandwidthBytesPerSec) {
          const dueMs = (received / o.bandwidthBytesPerSec) * 1000 - (Date.now() - startedMs);
          if (dueMs > 1) await sleep(dueMs);
        }
      }
    } catch (e) {
      if (e instanceof HttpError || e instanceof ChunkResetError) throw e;
      throw new HttpError(
        400,
        `request body ended before its Content-Length (${received} of ${o.declaredBytes} bytes arrived)`,
      );
    }
    if (received !== o.declaredBytes) {
      throw new HttpError(400, `request body has ${received} bytes, Content-Length says ${o.declaredBytes}`);
    }
    await flush();
    const { md5Hex, crc32: bodyCrc, units, buffers } = await job.digest(o.endsBlock);
    // The worker handles messages in order: once it answered, it read every batch and gave it back.
    const handed = buffers.map((b) => new Uint8Array(b.buffer, b.offset, BATCH_BUFFER_BYTES));
    if (unitsInWorker) {
      const whole = o.endsBlock ? received : received - (received % ETAG_UNIT_BYTES);
      o.units.addUnits(units ?? new Uint8Array(0), whole);
      feedBatches(handed, whole, received, o.units);
    }
    o.buffers.give(batch ? [...buffers, batch] : buffers);
    // The block's CRC so far without a second pass over the body.
    return {
      bytes: received,
      md5Hex,
      crc32: bodyCrc,
      blockCrc32: crc32Combine(o.blockCrcBefore, bodyCrc, received),
    };
  } catch (e) {
    // The batches handed to the worker stay there (and go to its garbage collector).
    job.drop();
    throw e;
  } finally {
    // No write is pending here (each is awaited), so the block may be used again at once:
    // the caller unlocks right after (a client retries a cut chunk fast).
    out.close();
  }
}

/** Feeds body bytes `from`…`to` to `units` from the batches they were received in (all full but the last). */
function feedBatches(batches: readonly Uint8Array[], from: number, to: number, units: BlockUnitHasher): void {
  for (let p = from; p < to;) {
    const within = p % BATCH_BUFFER_BYTES;
    const take = Math.min(BATCH_BUFFER_BYTES - within, to - p);
    units.update(batches[Math.floor(p / BATCH_BUFFER_BYTES)]!.subarray(within, within + take));
    p += take;
  }
}

/** The connection was cut on purpose (fault injection); nothing can be answered. */
export class ChunkResetError extends Error {
  override readonly name = 'ChunkResetError';
  constructor() {
    super('connection reset by fault injection');
  }
}
