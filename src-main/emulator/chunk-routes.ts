import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockContext } from '../protocol/types';
import type { BlockLocation, BlockStore, BlockRecord } from './block-store';
import { ChunkResetError, receiveChunk } from './chunk-body';
import type { Clock, EmulatorConfig, ObjectStore } from './contracts';
import { batchTag, CtxError, type CtxSigner } from './ctx';
import type { BatchBuffers } from './direct-io';
import type { FaultInjector } from './faults';
import type { HashPool } from './hash-pool';
import { HttpError, sendJson } from './http-util';
import type { UploadCounter } from './upload-counts';
import { contentLength, pathInt, uploadBasics } from './upload-common';

/** Largest block accepted by mkblk: 256 units of 4 MiB. */
export const MAX_BLOCK_SIZE_BYTES = 1024 * 1024 * 1024;
/** Largest block order accepted (a 10000-block file of 1 GiB blocks is far past any real file). */
export const MAX_BLOCK_ORDER = 100_000;

export interface ChunkDeps {
  config: EmulatorConfig;
  objects: ObjectStore;
  clock: Clock;
  blocks: BlockStore;
  signer: CtxSigner;
  faults: FaultInjector;
  /** MD5 and CRC-32 of chunk bodies, off the request thread. */
  hashes: HashPool;
  /** Batch buffers for chunk bodies (shared with the hashing workers, aligned for direct writes). */
  buffers: BatchBuffers;
  uploadUrl: () => string;
  /** Added to as chunks arrive. */
  counts: UploadCounter;
}

/** `POST /mkblk/<blockSize>/<blockOrder>`: a new block with its first chunk. */
export async function handleMkblk(
  deps: ChunkDeps,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
): Promise<void> {
  const { batch } = uploadBasics(req, deps, 'application/octet-stream');
  const blockSize = pathInt(params.blockSize, 'blockSize');
  const blockOrder = pathInt(params.blockOrder, 'blockOrder');
  if (blockSize === 0) throw new HttpError(400, 'blockSize must be at least 1 byte');
  if (blockSize > MAX_BLOCK_SIZE_BYTES)
    throw new HttpError(400, `blockSize ${blockSize} is larger than the ${MAX_BLOCK_SIZE_BYTES} bytes allowed`);
  if (blockOrder > MAX_BLOCK_ORDER)
    throw new HttpError(400, `blockOrder ${blockOrder} is larger than ${MAX_BLOCK_ORDER}`);
  const length = checkChunkLength(req, blockSize);
  deps.counts.mkblk();
  const block = deps.blocks.create(batch, blockOrder, blockSize);
  deps.blocks.tryLock(block.id);
  let done = false;
  try {
    const reply = await takeChunk(deps, req, block, length, batch);
    done = true;
    sendJson(res, 200, reply);
  } finally {
    deps.blocks.unlock(block.id);
    if (!done) deps.blocks.remove([block.id]);
  }
}

/** `POST /bput/<ctx>/<nextChunkOffset>`: the next chunk of a block, allowed by the block's current ctx only. */
export async function handleBput(
  deps: ChunkDeps,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
): Promise<void> {
  const { batch } = uploadBasics(req, deps, 'application/octet-stream');
  const offset = pathInt(params.offset, 'nextChunkOffset');
  let claims;
  try {
    claims = deps.signer.verify(params.ctx ?? '');
  } catch (e) {
    if (e instanceof CtxError) throw new HttpError(401, `invalid ctx: ${e.message}; restart the block with mkblk`);
    throw e;
  }
  if (!claims.batchTag.equals(batchTag(batch)))
    throw new HttpError(401, 'invalid ctx: it belongs to another UploadBatch');
  if (claims.offset !== offset)
    throw new HttpError(401, `invalid ctx: it is valid only for the chunk at offset ${claims.offset}, not ${offset}`);
  const block = deps.blocks.get(claims.blockId);
  if (!block) throw new HttpError(401, 'invalid ctx: its block is unknown or was purged; restart the block with mkblk');
  if (block.received !== claims.offset) {
    deps.counts.spentCtx(block.id);
    throw new HttpError(
      401,
      `invalid ctx: already used (the block is at offset ${block.received}); a ctx is valid only for the chunk that directly follows it`,
    );
  }
  if (block.received >= block.blockSize)
    throw new HttpError(401, 'invalid ctx: the block is already complete; no chunk may follow');
  if (deps.faults.ctxExpired())
    throw new HttpError(401, 'invalid ctx: expired (injected fault); restart the block with mkblk');
  const length = checkChunkLength(req, block.blockSize - block.received);
  if (!deps.blocks.tryLock(block.id))
    throw new HttpError(
      401,
      'invalid ctx: another request is using it right now (chunks of a block must be sent one after another)',
    );
  deps.counts.bput();
  try {
    sendJson(res, 200, await takeChunk(deps, req, block, length, batch));
  } finally {
    deps.blocks.unlock(block.id);
  }
}

/** Content-Length of a chunk: present, not empty, not past the end of the block (checked before reading). */
function checkChunkLength(req: IncomingMessage, remainingBytes: number): number {
  const length = contentLength(req);
  if (length === 0) throw new HttpError(400, 'empty chunk: a chunk needs at least 1 byte');
  if (length > remainingBytes) {
    throw new HttpError(
      400,
      `chunk of ${length} bytes goes past the end of the block (${remainingBytes} bytes left of it)`,
    );
  }
  return length;
}

async function takeChunk(
  deps: ChunkDeps,
  req: IncomingMessage,
  block: BlockRecord,
  length: number,
  batch: string,
): Promise<BlockContext> {
  const endpoint = block.received === 0 ? 'mkblk' : 'bput';
  const reset = deps.faults.resetFor(endpoint);
  const hasher = await deps.blocks.unitHasher(block);
  let receipt;
  try {
    receipt = await receiveChunk(req, {
      ...positionOf(deps.blocks.location(block), block.received),
      declaredBytes: length,
      hashes: deps.hashes,
      buffers: deps.buffers,
      blockCrcBefore: block.crc32,
      units: hasher,
      endsBlock: block.received + length === block.blockSize,
      bandwidthBytesPerSec: deps.faults.bandwidthBytesPerSec,
      resetAfterBytes: reset ? Math.max(1, Math.floor(length / 2)) : undefined,
      onBytes: (n) => deps.counts.bytes(n),
    });
  } catch (e) {
    deps.blocks.dropHasher(block.id);
    if (e instanceof ChunkResetError) throw new HttpError(599, e.message);
    throw e;
  }
  const committed = deps.blocks.commit(block, block.received + receipt.bytes, receipt.blockCrc32, hasher);
  return {
    ctx: deps.signer.sign({ blockId: block.id, blockOrder: block.blockOrder, offset: committed.received, batch }),
    checksum: receipt.md5Hex,
    crc32: receipt.crc32,
    offset: committed.received,
    host: deps.uploadUrl(),
  };
}

function positionOf(
  loc: BlockLocation & { create: boolean },
  received: number,
): { file: string; position: number; create: boolean } {
  return { file: loc.file, position: loc.baseOffset + received, create: loc.create };
}
