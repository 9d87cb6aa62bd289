import { crc32 } from '../base/crc32';
import { ServiceError, isServiceError } from '../protocol/errors';
import type { BlockState } from './block-state';
import { TransferFailure, sleep, storeWrite } from './errors';
import type { FileSource } from './file-source';
import type { ChunkSizer } from './plan';
import { failureFrom, retryAbout, type CallName, type Decision } from './retry';
import type { IssuedToken } from './tokens';
import type { Stops, UploadDeps, UploadHooks } from './upload-deps';
import type { UploadToken } from './upload-token';

/** A block whose ctx is refused this many times (even with progress between) fails the transfer. */
const MAX_BLOCK_RESTARTS = 10;

/** What the blocks of one upload round share (file-upload.ts builds one per round). */
export interface BlockRound {
  deps: UploadDeps;
  transferId: number;
  priority: number;
  file: FileSource;
  sizer: ChunkSizer;
  tokens: UploadToken;
  batch: string;
  /**
   * The retry decision for a failed call (retry.ts, with the upload's state). `refreshedBefore`:
   * this chunk already got a new token for a 401 of its own, so a second 401 is not the token's.
   */
  decide(
    e: ServiceError,
    call: CallName,
    tok: IssuedToken | undefined,
    attempt: number,
    refreshedBefore?: boolean,
  ): Decision;
  retried: UploadHooks['retried'];
  /** Bytes acknowledged changed (a chunk committed, or a block set back). */
  progressed(): void;
}

/**
 * Uploads one block: its chunks strictly in order, each committed to the store after its
 * reply (offset, ctx, the SHA1s of finished 4 MiB units). Retries what retry.ts says, and
 * starts the block over on a refused ctx (at most MAX_BLOCK_RESTARTS times). Resolves when
 * the block is done; rejects with a TransferFailure, or with `stops.soft`'s reason when
 * stopped (a chunk already sent is awaited and committed first).
 */
export async function uploadBlock(r: BlockRound, b: BlockState, stops: Stops): Promise<void> {
  const signal = stops.soft;
  let attempt = 0;
  let restarts = 0;
  // Set when this chunk's 401 made the token be refreshed: its next 401 is then the ctx's (a
  // chunk of another block may have accepted the new token meanwhile, which clears the
  // token's own "fresh" mark), so the block starts over instead of refreshing again and again.
  const chunkState = { refreshedFor401: false };
  while (!b.done) {
    const offset = b.nextOffset;
    const chunkBytes = r.sizer.chunkBytes;
    const len = Math.min(chunkBytes, b.size - offset);
    const releaseBytes = await r.deps.scheduler.bytes.acquire(len, r.priority, signal);
    // Sized by the sizer's choice (few distinct sizes, reused), held only while in flight.
    const buf = r.deps.buffers.take(chunkBytes);
    const sent: ChunkAttempt = { call: offset === 0 ? 'mkblk' : 'bput', tok: undefined };
    try {
      await sendChunk(r, b, stops, buf, len, sent);
      attempt = 0;
      chunkState.refreshedFor401 = false;
      r.progressed();
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (!isServiceError(e)) throw e;
      attempt++;
      await afterChunkError(r, b, e, { ...sent, attempt, signal }, chunkState, () => {
        if (++restarts > MAX_BLOCK_RESTARTS) {
          throw new TransferFailure(
            'ctx-rejected',
            `the service refused the upload context of block ${b.index} ${MAX_BLOCK_RESTARTS} times; last answer: ${e.message}`,
            { cause: e },
          );
        }
      });
    } finally {
      r.deps.buffers.give(buf);
      releaseBytes();
    }
  }
}

/** Which call a chunk attempt reached, and with which token (for the retry decision). */
interface ChunkAttempt {
  call: CallName;
  tok: IssuedToken | undefined;
}

/** Reads, sends and commits the block's next chunk; `at` records how far it got. */
async function sendChunk(
  r: BlockRound,
  b: BlockState,
  stops: Stops,
  buf: Buffer,
  len: number,
  at: ChunkAttempt,
): Promise<void> {
  const { client, limiter, crc } = r.deps;
  const offset = b.nextOffset;
  const chunk = await r.file.readChunk(buf, len, b.fileOffset + offset);
  await limiter.take(len, stops.soft);
  at.call = 'token';
  at.tok = await r.tokens.current(stops.soft);
  at.call = offset === 0 ? 'mkblk' : 'bput';
  const track = crc.trackBlockCrc && offset > 0;
  // A restored block's CRC so far is read back from disk once (its spare buffer space).
  if (track && b.crcSoFar === undefined) {
    const spare = buf.subarray(chunk.byteOffset - buf.byteOffset + len);
    b.crcSoFar = await r.file.crc32Of(
      b.fileOffset,
      offset,
      spare.length >= 64 * 1024 ? spare : Buffer.allocUnsafe(1024 * 1024),
    );
  }
  const t0 = performance.now();
  const common = {
    token: at.tok.token,
    batch: r.batch,
    key: r.tokens.currentKey,
    chunk,
    signal: stops.hard,
    crcBefore: track ? b.crcSoFar : undefined,
  };
  const pending =
    offset === 0
      ? client.mkblk({ ...common, blockSize: b.size, blockOrder: b.index })
      : client.bput({ ...common, ctx: b.lastCtx!, offset });
  const replied = r.deps.scheduler.sending('block'); // its round trip feeds the window
  const hashed = b.hashChunk(chunk); // overlaps with the request in flight
  const reply = await pending.then(
    (v) => (replied(true), v),
    (e: unknown) => {
      replied(false);
      throw e;
    },
  );
  r.sizer.observe(len, performance.now() - t0);
  if (reply.offset !== offset + len) {
    throw new ServiceError({
      kind: 'bad-reply',
      endpoint: at.call,
      code: 'bad-offset',
      message: `the service acknowledged offset ${reply.offset} after a chunk ending at ${offset + len}`,
    });
  }
  const crcAfter =
    crc.trackBlockCrc && (offset === 0 || b.crcSoFar !== undefined)
      ? crc32(chunk, offset === 0 ? 0 : b.crcSoFar)
      : undefined;
  b.acknowledge(reply.offset, reply.ctx, hashed, r.deps.now());
  b.crcSoFar = crcAfter;
  storeWrite(() =>
    r.deps.store.commitChunk(r.transferId, b.index, b.nextOffset, b.lastCtx!, b.startedMs!, b.unitSha1s()),
  );
  r.tokens.accepted(at.tok);
}

/**
 * Acts on a failed chunk as retry.ts decides: waits and retries, refreshes the token, or
 * sets the block back to its start (after `countRestart`, which throws past the limit).
 * Throws the failure otherwise.
 */
async function afterChunkError(
  r: BlockRound,
  b: BlockState,
  e: ServiceError,
  at: ChunkAttempt & { attempt: number; signal: AbortSignal },
  chunk: { refreshedFor401: boolean },
  countRestart: () => void,
): Promise<void> {
  const { attempt, signal } = at;
  let d = r.decide(e, at.call, at.tok, attempt, at.call === 'bput' && chunk.refreshedFor401);
  if (e.code === 'crc32-mismatch' && b.nextOffset > 0 && !r.deps.crc.trackBlockCrc) {
    // Maybe the service answers the CRC of the block so far: the chunk was taken and
    // its ctx used, so this block starts over, now tracking its CRC.
    r.deps.crc.trackBlockCrc = true;
    d = { action: 'restart-block', delayMs: 0 };
  }
  r.retried(`${e.message} → ${d.action}`, 'delayMs' in d ? d.delayMs : 0, retryAbout(e, d));
  switch (d.action) {
    case 'retry':
    case 'resend-chunk':
      await sleep(d.delayMs, signal);
      return;
    case 'restart-block':
      countRestart();
      chunk.refreshedFor401 = false;
      b.reset();
      storeWrite(() => r.deps.store.resetBlock(r.transferId, b.index));
      r.progressed();
      await sleep(d.delayMs, signal);
      return;
    case 'refresh-token':
      chunk.refreshedFor401 = true;
      await r.tokens.refresh(at.tok, signal);
      return;
    default:
      throw failureFrom(e, d);
  }
}
