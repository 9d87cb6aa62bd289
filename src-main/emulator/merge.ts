import { open } from 'node:fs/promises';
import { EtagHasher } from '../protocol/etag';
import type { Db } from '../store/db';
import type { BlockRecord, BlockStore } from './block-store';
import type { Clock } from './contracts';

const COPY_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Concatenates the committed bytes of `blocks`, in order, into `target`, computing the
 * etag on the way (protocol-notes "The file hash", streamed, one reused buffer).
 */
export async function mergeBlocks(blocks: readonly BlockRecord[], store: BlockStore, target: string): Promise<{ size: number; hash: string }> {
  const out = await open(target, 'wx');
  const hasher = new EtagHasher();
  const buf = Buffer.allocUnsafe(COPY_BUFFER_BYTES);
  try {
    for (const b of blocks) {
      const fh = await open(store.filePath(b.id), 'r');
      try {
        let pos = 0;
        while (pos < b.received) {
          const want = Math.min(buf.length, b.received - pos);
          const { bytesRead } = await fh.read(buf, 0, want, pos);
          if (bytesRead === 0) throw new Error(`block file ${b.id} is shorter than its committed ${b.received} bytes`);
          const piece = buf.subarray(0, bytesRead);
          hasher.update(piece);
          await out.write(piece);
          pos += bytesRead;
        }
      } finally {
        await fh.close();
      }
    }
  } finally {
    await out.close();
  }
  return { size: hasher.bytes, hash: hasher.digest() };
}

export interface MergeRecord {
  batch: string;
  ctxDigest: string;
  bucket: string;
  key: string;
  hash: string;
  /** The JSON reply that was sent. */
  reply: string;
}

/**
 * Completed mkfile calls. A client whose mkfile reply was lost retries the same call;
 * while the object it made is unchanged, the retry gets the same reply instead of a 412
 * for blocks that are already merged.
 */
export class MergeLog {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  last(batch: string, ctxDigest: string): MergeRecord | undefined {
    return this.db
      .prepare<[string, string], MergeRecord>('SELECT batch, ctx_digest AS ctxDigest, bucket, key, hash, reply FROM merges WHERE batch = ? AND ctx_digest = ?')
      .get(batch, ctxDigest);
  }

  record(m: MergeRecord): void {
    this.db
      .prepare('INSERT OR REPLACE INTO merges (batch, ctx_digest, bucket, key, hash, reply, merged_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(m.batch, m.ctxDigest, m.bucket, m.key, m.hash, m.reply, this.clock.now());
  }

  /** Forgets merges older than cutoffMs; returns how many. */
  purgeOlderThan(cutoffMs: number): number {
    return this.db.prepare('DELETE FROM merges WHERE merged_at < ?').run(cutoffMs).changes;
  }
}
