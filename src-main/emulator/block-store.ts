import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { Clock } from './contracts';
import { newBlockId } from './ctx';
import { BlockUnitHasher } from './unit-hasher';

/** An unmerged block: its committed progress lives in SQLite, its bytes in <data>/blocks/<id>. */
export interface BlockRecord {
  id: string;
  batch: string;
  blockOrder: number;
  blockSize: number;
  /** Bytes committed so far; bytes past this in the file are garbage from a cut chunk. */
  received: number;
  /** CRC-32 of the committed bytes. */
  crc32: number;
  /** The etag's SHA1s of the block's finished 4 MiB units (20 bytes each, in order). */
  unitDigests: Buffer;
  createdAt: number;
  updatedAt: number;
}

interface BlockRow {
  id: string;
  batch: string;
  block_order: number;
  block_size: number;
  received: number;
  crc32: number;
  unit_digests: Buffer;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: BlockRow): BlockRecord => ({
  id: r.id,
  batch: r.batch,
  blockOrder: r.block_order,
  blockSize: r.block_size,
  received: r.received,
  crc32: r.crc32,
  unitDigests: r.unit_digests,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Unmerged blocks. Survives a restart (a bput after it, with the right ctx, continues).
 * One request at a time may work on a block (`tryLock`); the lock is in memory, so a
 * restart frees it.
 */
export class BlockStore {
  private readonly dir: string;
  private readonly busy = new Set<string>();
  /** Running unit SHA1 per block, in memory only (rebuilt from the block file after a restart). */
  private readonly hashers = new Map<string, BlockUnitHasher>();
  private readonly insertStmt;
  private readonly getStmt;
  private readonly commitStmt;
  private readonly deleteStmt;

  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO blocks (id, batch, block_order, block_size, received, crc32, unit_digests, created_at, updated_at) VALUES (@id, @batch, @block_order, @block_size, @received, @crc32, @unit_digests, @created_at, @updated_at)',
    );
    this.getStmt = db.prepare<[string], BlockRow>('SELECT * FROM blocks WHERE id = ?');
    this.commitStmt = db.prepare<[number, number, Buffer, number, string]>('UPDATE blocks SET received = ?, crc32 = ?, unit_digests = ?, updated_at = ? WHERE id = ?');
    this.deleteStmt = db.prepare<[string]>('DELETE FROM blocks WHERE id = ?');
    this.dir = path.join(dataDir, 'blocks');
    mkdirSync(this.dir, { recursive: true });
    this.removeStrayFiles();
  }

  filePath(id: string): string {
    return path.join(this.dir, id);
  }

  /** A new empty block (row and file). */
  create(batch: string, blockOrder: number, blockSize: number): BlockRecord {
    const now = this.clock.now();
    const row: BlockRow = { id: newBlockId(), batch, block_order: blockOrder, block_size: blockSize, received: 0, crc32: 0, unit_digests: Buffer.alloc(0), created_at: now, updated_at: now };
    writeFileSync(this.filePath(row.id), Buffer.alloc(0));
    this.insertStmt.run(row);
    this.hashers.set(row.id, new BlockUnitHasher(0));
    return toRecord(row);
  }

  get(id: string): BlockRecord | undefined {
    const r = this.getStmt.get(id);
    return r ? toRecord(r) : undefined;
  }

  /**
   * The unit hasher of `block`, positioned at its committed size: the one in memory when it
   * is in step, else rebuilt by re-reading the block's unfinished unit (at most 4 MiB).
   * The caller holds the block's lock and either commits through `commit` or calls
   * `dropHasher` when the chunk failed.
   */
  async unitHasher(block: BlockRecord): Promise<BlockUnitHasher> {
    const h = this.hashers.get(block.id);
    if (h && h.at === block.received) return h;
    const rebuilt = await BlockUnitHasher.rebuild(this.filePath(block.id), block.received);
    this.hashers.set(block.id, rebuilt);
    return rebuilt;
  }

  /** Forgets the in-memory unit state of a block (a chunk failed after feeding it). */
  dropHasher(id: string): void {
    this.hashers.delete(id);
  }

  /**
   * Records that `block` now holds `received` bytes whose CRC-32 is `crc32`, appending the
   * unit digests `hasher` finished (and, when the block is now complete, the digest of its
   * last partial unit).
   */
  commit(block: BlockRecord, received: number, crc32: number, hasher: BlockUnitHasher): BlockRecord {
    if (hasher.at !== received) throw new Error(`block ${block.id}: unit hasher at ${hasher.at}, committing ${received}`);
    if (received === block.blockSize) hasher.finishBlock();
    const added = hasher.takeFinished();
    // The caller holds the block's lock, so `block` is its current row: no read-back needed.
    const unitDigests = added.length ? Buffer.concat([block.unitDigests, added]) : block.unitDigests;
    const now = this.clock.now();
    const { changes } = this.commitStmt.run(received, crc32, unitDigests, now, block.id);
    if (changes !== 1) throw new Error(`block ${block.id} vanished while being written`);
    if (received === block.blockSize) this.hashers.delete(block.id);
    return { ...block, received, crc32, unitDigests, updatedAt: now };
  }

  tryLock(id: string): boolean {
    if (this.busy.has(id)) return false;
    this.busy.add(id);
    return true;
  }

  unlock(id: string): void {
    this.busy.delete(id);
  }

  remove(ids: readonly string[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.deleteStmt.run(id);
    })();
    for (const id of ids) {
      this.hashers.delete(id);
      rmSync(this.filePath(id), { force: true });
    }
  }

  /** Removes blocks untouched since before `cutoffMs` (and not in use); returns how many. */
  purgeOlderThan(cutoffMs: number): number {
    const ids = this.db
      .prepare<[number], { id: string }>('SELECT id FROM blocks WHERE updated_at < ?')
      .all(cutoffMs)
      .map((r) => r.id)
      .filter((id) => !this.busy.has(id));
    this.remove(ids);
    return ids.length;
  }

  count(): number {
    return this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM blocks').get()?.n ?? 0;
  }

  /** Files without a row (a crash between creating the file and the row) are garbage. */
  private removeStrayFiles(): void {
    const known = new Set(this.db.prepare<[], { id: string }>('SELECT id FROM blocks').all().map((r) => r.id));
    for (const name of readdirSync(this.dir)) {
      if (!known.has(name)) rmSync(path.join(this.dir, name), { force: true });
    }
  }
}
