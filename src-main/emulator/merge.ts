import { link, open, stat } from 'node:fs/promises';
import { EtagHasher, etagFromUnitDigests, etagOfBuffer } from '../protocol/etag';
import type { Db } from '../base/sqlite';
import { StatementCache } from './stmt-cache';
import type { BlockRecord, BlockStore } from './block-store';
import type { Clock } from './contracts';
import { splitDigests, UNIT_DIGEST_BYTES, unitsOfBlock } from './unit-hasher';

/** Copy piece size; two such buffers alternate so one is read while the other is written. */
const COPY_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * Puts the committed bytes of `blocks`, in order, into the new file `target` and returns the
 * object's size and etag. The etag combines the unit SHA1s recorded while the chunks
 * arrived (block-store.ts); the bytes are not hashed again. A block without its full set
 * of digests (one left by an emulator older than the digests) is hashed while copied.
 * A one-block object becomes a hard link to the block file (no copy): a complete block's
 * file is never written again, and the block's own name goes when the block is removed.
 * The block files are left intact either way, so a failed merge can be retried.
 */
export async function mergeBlocks(
  blocks: readonly BlockRecord[],
  store: BlockStore,
  target: string,
): Promise<{ size: number; hash: string }> {
  if (blocks.length === 0) {
    await (await open(target, 'wx')).close();
    return { size: 0, hash: etagOfBuffer(Buffer.alloc(0)) };
  }
  const complete = blocks.every((b) => b.unitDigests.length === unitsOfBlock(b.received) * UNIT_DIGEST_BYTES);
  if (!complete) return copyAndHash(blocks, store, target);
  const size = blocks.reduce((n, b) => n + b.received, 0);
  const hash = etagFromUnitDigests(blocks.flatMap((b) => splitDigests(b.unitDigests)));
  if (await takeAssembly(blocks, store, target)) return { size, hash };
  if (blocks.length === 1 && (await linkBlock(blocks[0]!, store, target))) return { size, hash };
  await copyBlocks(blocks, store, target);
  return { size, hash };
}

/**
 * Zero-copy path: when blocks 0…n-2 (and maybe n-1) were written in place into one assembly
 * file that no other block uses, that file is the object: cut to length, the last block
 * appended when it lives elsewhere (one block's copy at most), and hard-linked to
 * `target`. The assembly is sealed first, so nothing writes into it again. A failure
 * part way leaves the blocks readable as before: only bytes of no block are changed.
 * False when the layout does not allow it (then the caller copies).
 */
async function takeAssembly(blocks: readonly BlockRecord[], store: BlockStore, target: string): Promise<boolean> {
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  const name = first.assembly;
  if (name === null) return false;
  const inAssembly = blocks.filter((b) => b.assembly === name);
  const lastOwn = last.assembly !== name && blocks.length > 1;
  if (inAssembly.length !== blocks.length - (lastOwn ? 1 : 0)) return false;
  if (inAssembly.some((b, i) => b.blockOrder !== i || b.blockSize !== first.blockSize)) return false;
  if (store.assemblyUsers(name) !== inAssembly.length) return false;
  store.sealAssembly(name);
  const file = store.assemblyPath(name);
  const assembledBytes = inAssembly.length * first.blockSize;
  const fh = await open(file, 'r+');
  try {
    await fh.truncate(assembledBytes);
  } finally {
    await fh.close();
  }
  if (lastOwn) await copyBlocks([last], store, file, undefined, assembledBytes);
  await link(file, target);
  return true;
}

/** Hard-links a one-block object; false when the block file does not fit (or links are unsupported), to copy instead. */
async function linkBlock(b: BlockRecord, store: BlockStore, target: string): Promise<boolean> {
  const { file, baseOffset } = store.location(b);
  if (baseOffset !== 0 || (await stat(file)).size !== b.received) return false;
  try {
    await link(file, target);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EMLINK') return false;
    throw e;
  }
}

/**
 * Concatenates the blocks into `target` (a new file, or an existing one from `startAt` on),
 * reading the next piece while the last one is written.
 */
async function copyBlocks(
  blocks: readonly BlockRecord[],
  store: BlockStore,
  target: string,
  onPiece?: (piece: Buffer) => void,
  startAt?: number,
): Promise<void> {
  const out = await open(target, startAt === undefined ? 'wx' : 'r+');
  const bufs = [Buffer.allocUnsafe(COPY_BUFFER_BYTES), Buffer.allocUnsafe(COPY_BUFFER_BYTES)] as const;
  let turn = 0;
  let outPos = startAt ?? 0;
  let writing: Promise<unknown> = Promise.resolve();
  try {
    for (const b of blocks) {
      const { file, baseOffset } = store.location(b);
      const fh = await open(file, 'r');
      try {
        let pos = 0;
        while (pos < b.received) {
          const buf = bufs[turn]!;
          turn ^= 1;
          const want = Math.min(buf.length, b.received - pos);
          const { bytesRead } = await fh.read(buf, 0, want, baseOffset + pos);
          if (bytesRead === 0) throw new Error(`block file ${b.id} is shorter than its committed ${b.received} bytes`);
          const piece = buf.subarray(0, bytesRead);
          onPiece?.(piece);
          // The previous write used the other buffer; wait for it before this one is reused.
          await writing;
          const at = outPos;
          writing = writeAll(out, piece, at);
          outPos += bytesRead;
          pos += bytesRead;
        }
      } finally {
        await fh.close();
      }
    }
    await writing;
  } finally {
    await writing.catch(() => undefined);
    await out.close();
  }
}

async function writeAll(out: Awaited<ReturnType<typeof open>>, piece: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < piece.length) {
    const { bytesWritten } = await out.write(piece, done, piece.length - done, position + done);
    done += bytesWritten;
  }
}

async function copyAndHash(
  blocks: readonly BlockRecord[],
  store: BlockStore,
  target: string,
): Promise<{ size: number; hash: string }> {
  const hasher = new EtagHasher();
  await copyBlocks(blocks, store, target, (piece) => hasher.update(piece));
  return { size: hasher.bytes, hash: hasher.digest() };
}

export interface MergeRecord {
  batch: string;
  ctxDigest: string;
  bucket: string;
  key: string;
  hash: string;
  /** The JSON reply that was sent; '' while it is still to be made (see `record`). */
  reply: string;
  /** The Fmgr task the upload's persistentOps became, if any. */
  persistentId?: string;
}

/**
 * Completed mkfile calls. A client whose mkfile reply was lost retries the same call;
 * while the object it made is unchanged, the retry gets the same reply instead of a 412
 * for blocks that are already merged. A merge is recorded in the transaction that stores
 * its object, with no reply yet (the callback may still be under way); a retry of one
 * whose reply never came (a crash, a failed callback) makes the reply then.
 */
export class MergeLog {
  private readonly stmts: StatementCache;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.stmts = new StatementCache(db);
  }

  last(batch: string, ctxDigest: string): MergeRecord | undefined {
    return this.stmts
      .get<[string, string], MergeRecord>(
        'SELECT batch, ctx_digest AS ctxDigest, bucket, key, hash, reply, persistent_id AS persistentId FROM merges WHERE batch = ? AND ctx_digest = ?',
      )
      .get(batch, ctxDigest);
  }

  record(m: MergeRecord): void {
    this.stmts
      .get(
        'INSERT OR REPLACE INTO merges (batch, ctx_digest, bucket, key, hash, reply, persistent_id, merged_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(m.batch, m.ctxDigest, m.bucket, m.key, m.hash, m.reply, m.persistentId ?? null, this.clock.now());
  }

  /** The reply of a recorded merge, once made. */
  setReply(batch: string, ctxDigest: string, reply: string): void {
    this.stmts.get('UPDATE merges SET reply = ? WHERE batch = ? AND ctx_digest = ?').run(reply, batch, ctxDigest);
  }

  /** Forgets merges older than cutoffMs; returns how many. */
  purgeOlderThan(cutoffMs: number): number {
    return this.stmts.get('DELETE FROM merges WHERE merged_at < ?').run(cutoffMs).changes;
  }
}
