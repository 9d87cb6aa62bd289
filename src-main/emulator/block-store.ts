import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { Clock } from './contracts';
import { newBlockId } from './ctx';

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

  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly clock: Clock,
  ) {
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
    const row: BlockRow = { id: newBlockId(), batch, block_order: blockOrder, block_size: blockSize, received: 0, crc32: 0, created_at: now, updated_at: now };
    writeFileSync(this.filePath(row.id), Buffer.alloc(0));
    this.db
      .prepare('INSERT INTO blocks (id, batch, block_order, block_size, received, crc32, created_at, updated_at) VALUES (@id, @batch, @block_order, @block_size, @received, @crc32, @created_at, @updated_at)')
      .run(row);
    return toRecord(row);
  }

  get(id: string): BlockRecord | undefined {
    const r = this.db.prepare<[string], BlockRow>('SELECT * FROM blocks WHERE id = ?').get(id);
    return r ? toRecord(r) : undefined;
  }

  /** Records that the block now holds `received` bytes whose CRC-32 is `crc32`. */
  commit(id: string, received: number, crc32: number): BlockRecord {
    this.db.prepare('UPDATE blocks SET received = ?, crc32 = ?, updated_at = ? WHERE id = ?').run(received, crc32, this.clock.now(), id);
    const b = this.get(id);
    if (!b) throw new Error(`block ${id} vanished while being written`);
    return b;
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
    const del = this.db.prepare('DELETE FROM blocks WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
    for (const id of ids) rmSync(this.filePath(id), { force: true });
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
