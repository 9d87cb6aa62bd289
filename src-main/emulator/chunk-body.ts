import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { crc32Combine } from './crc32-combine';
import { HttpError } from './http-util';

/** Pieces are gathered up to this size before one positioned vectored write. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

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
  /** Fed every piece of the body as it arrives (the etag's unit SHA1s). */
  onPiece?: (piece: Buffer) => void;
  /** Fault injection: read no faster than this. */
  bandwidthBytesPerSec?: number;
  /** Fault injection: destroy the connection once this many bytes have arrived. */
  resetAfterBytes?: number;
}

/**
 * Streams a chunk's request body into its block file, hashing it on the way. Rejects with
 * HttpError 400 when the body ends before its Content-Length, and with a ChunkResetError
 * when fault injection cut the connection; on rejection the block's committed state is
 * untouched (bytes written past the committed offset are overwritten by the next chunk).
 */
export async function receiveChunk(req: IncomingMessage, o: ReceiveChunkOptions): Promise<ChunkReceipt> {
  const fh = await open(o.file, o.create ? 'w' : 'r+');
  const md5 = createHash('md5');
  let bodyCrc = 0;
  let received = 0;
  let written = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const startedMs = Date.now();
  const flush = async () => {
    if (pendingBytes === 0) return;
    const pieces = pending;
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    // One positioned vectored write, no copy into a joined buffer.
    const { bytesWritten } = await fh.writev(pieces, o.position + written);
    if (bytesWritten !== bytes) throw new Error(`short write to the block file (${bytesWritten} of ${bytes} bytes)`);
    written += bytes;
  };
  try {
    try {
      for await (const piece of req as AsyncIterable<Buffer>) {
        received += piece.length;
        if (received > o.declaredBytes)
          throw new HttpError(400, `request body is longer than its Content-Length of ${o.declaredBytes}`);
        md5.update(piece);
        bodyCrc = crc32(piece, bodyCrc);
        o.onPiece?.(piece);
        pending.push(piece);
        pendingBytes += piece.length;
        if (pendingBytes >= WRITE_BUFFER_BYTES) await flush();
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
    await fh.close();
    // The block's CRC so far without a second pass over the body.
    return {
      bytes: received,
      md5Hex: md5.digest('hex'),
      crc32: bodyCrc,
      blockCrc32: crc32Combine(o.blockCrcBefore, bodyCrc, received),
    };
  } catch (e) {
    // No write is pending here (each is awaited), so the block may be used again at once:
    // the caller unlocks without waiting for the close (a client retries a cut chunk fast).
    fh.close().catch(() => undefined);
    throw e;
  }
}

/** The connection was cut on purpose (fault injection); nothing can be answered. */
export class ChunkResetError extends Error {
  override readonly name = 'ChunkResetError';
  constructor() {
    super('connection reset by fault injection');
  }
}
