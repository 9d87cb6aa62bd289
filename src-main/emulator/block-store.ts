import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../base/sqlite';
import type { Clock } from './contracts';
import { newBlockId } from './ctx';
import { ETAG_UNIT_BYTES } from '../protocol/etag';
import { BlockUnitHasher } from './unit-hasher';

/** Blocks larger than this always get a file of their own (an assembly is for the usual 4–64 MiB blocks). */
const MAX_ASSEMBLY_BLOCK_BYTES = 256 * 1024 * 1024;

/** Blocks whose rows are gone and whose files are still to remove (BlockStore.removeRows). */
export interface RemovedBlocks {
  readonly rows: readonly { id: string; assembly: string | null }[];
}

/** Where a block's bytes are: `file` from byte `baseOffset` on. */
export interface BlockLocation {
  file: string;
  baseOffset: number;
}

/**
 * An unmerged block: its committed progress lives in SQLite. Its bytes are either in a
 * file of its own (<data>/blocks/<id>) or, for a block whose size is a multiple of 4 MiB,
 * written in place into the assembly file of its batch and size
 * (<data>/assemblies/<name>, at blockOrder * blockSize), so that mkfile can turn the
 * assembly into the object without copying (merge.ts).
 */
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
  /** Name of the assembly file holding the bytes, or null for a file of its own. */
  assembly: string | null;
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
  assembly: string | null;
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
  assembly: r.assembly,
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
  private readonly assemblyDir: string;
  /**
   * Assemblies that new blocks may still claim regions of: those created by this process
   * and not yet taken by a mkfile. After a restart, older assemblies serve their existing
   * blocks only, so nothing is ever written into a file an object may already share.
   */
  private readonly openAssemblies = new Map<string, string>();
  private readonly busy = new Set<string>();
  /** Running unit SHA1 per block, in memory only (rebuilt from the block file after a restart). */
  private readonly hashers = new Map<string, BlockUnitHasher>();
  private readonly insertStmt;
  private readonly getStmt;
  private readonly commitStmt;
  private readonly deleteStmt;
  private readonly regionTakenStmt;
  private readonly assemblyUsersStmt;

  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO blocks (id, batch, block_order, block_size, received, crc32, unit_digests, assembly, created_at, updated_at) VALUES (@id, @batch, @block_order, @block_size, @received, @crc32, @unit_digests, @assembly, @created_at, @updated_at)',
    );
    this.getStmt = db.prepare<[string], BlockRow>('SELECT * FROM blocks WHERE id = ?');
    this.commitStmt = db.prepare<[number, number, Buffer, number, string]>(
      'UPDATE blocks SET received = ?, crc32 = ?, unit_digests = ?, updated_at = ? WHERE id = ?',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM blocks WHERE id = ?');
    this.regionTakenStmt = db.prepare<[string, number], { id: string }>(
      'SELECT id FROM blocks WHERE assembly = ? AND block_order = ?',
    );
    this.assemblyUsersStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM blocks WHERE assembly = ?');
    this.dir = path.join(dataDir, 'blocks');
    this.assemblyDir = path.join(dataDir, 'assemblies');
    mkdirSync(this.dir, { recursive: true });
    mkdirSync(this.assemblyDir, { recursive: true });
    this.removeStrayFiles();
  }

  /** `create`: the file does not exist yet and the first chunk makes it (a block of its own before its first chunk). */
  location(b: BlockRecord): BlockLocation & { create: boolean } {
    if (b.assembly === null) return { file: path.join(this.dir, b.id), baseOffset: 0, create: b.received === 0 };
    return { file: this.assemblyPath(b.assembly), baseOffset: b.blockOrder * b.blockSize, create: false };
  }

  assemblyPath(name: string): string {
    return path.join(this.assemblyDir, name);
  }

  /** Number of blocks whose bytes are in the assembly `name`. */
  assemblyUsers(name: string): number {
    return this.assemblyUsersStmt.get(name)?.n ?? 0;
  }

  /** No new block may claim a region of the assembly `name` any more (mkfile is taking it). */
  sealAssembly(name: string): void {
    for (const [k, v] of this.openAssemblies) if (v === name) this.openAssemblies.delete(k);
  }

  /** The open assembly of (batch, blockSize) when `blockOrder`'s region in it is free; a new one when there is none; else null. */
  private assemblyFor(batch: string, blockOrder: number, blockSize: number): string | null {
    if (blockSize % ETAG_UNIT_BYTES !== 0 || blockSize > MAX_ASSEMBLY_BLOCK_BYTES) return null;
    const k = `${blockSize}/${batch}`;
    const open = this.openAssemblies.get(k);
    if (open !== undefined) return this.regionTakenStmt.get(open, blockOrder) ? null : open;
    const name = newBlockId();
    writeFileSync(this.assemblyPath(name), Buffer.alloc(0));
    this.openAssemblies.set(k, name);
    return name;
  }

  /** A new empty block (row and file). */
  create(batch: string, blockOrder: number, blockSize: number): BlockRecord {
    const now = this.clock.now();
    const id = newBlockId();
    const assembly = this.assemblyFor(batch, blockOrder, blockSize);
    const row: BlockRow = {
      id,
      batch,
      block_order: blockOrder,
      block_size: blockSize,
      received: 0,
      crc32: 0,
      unit_digests: Buffer.alloc(0),
      assembly,
      created_at: now,
      updated_at: now,
    };
    // A block of its own gets its file with its first chunk (receiveChunk's `create`).
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
    const { file, baseOffset } = this.location(block);
    const rebuilt = await BlockUnitHasher.rebuild(file, baseOffset, block.received);
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
    if (hasher.at !== received)
      throw new Error(`block ${block.id}: unit hasher at ${hasher.at}, committing ${received}`);
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

  /** Removes blocks (rows, own files, and assemblies no block uses any more); unknown ids are ignored. */
  remove(ids: readonly string[]): void {
    this.removeFiles(this.db.transaction(() => this.removeRows(ids))());
  }

  /**
   * Deletes the rows of blocks (in the caller's transaction, if any); returns what
   * `removeFiles` needs once that transaction committed. Files whose row is gone are
   * garbage: a crash before `removeFiles` leaves them to the next start's clean-up.
   */
  removeRows(ids: readonly string[]): RemovedBlocks {
    const rows = ids.map((id) => this.getStmt.get(id)).filter((r): r is BlockRow => r !== undefined);
    for (const r of rows) this.deleteStmt.run(r.id);
    return { rows };
  }

  /** Removes the files of blocks whose rows `removeRows` deleted. */
  removeFiles({ rows }: RemovedBlocks): void {
    for (const r of rows) {
      this.hashers.delete(r.id);
      if (r.assembly === null) rmSync(path.join(this.dir, r.id), { force: true });
      else if (this.assemblyUsers(r.assembly) === 0) {
        this.sealAssembly(r.assembly);
        rmSync(this.assemblyPath(r.assembly), { force: true });
      }
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
    const known = new Set(
      this.db
        .prepare<[], { id: string }>('SELECT id FROM blocks WHERE assembly IS NULL')
        .all()
        .map((r) => r.id),
    );
    for (const name of readdirSync(this.dir)) {
      if (!known.has(name)) rmSync(path.join(this.dir, name), { force: true });
    }
    const assemblies = new Set(
      this.db
        .prepare<[], { a: string }>('SELECT DISTINCT assembly AS a FROM blocks WHERE assembly IS NOT NULL')
        .all()
        .map((r) => r.a),
    );
    for (const name of readdirSync(this.assemblyDir)) {
      if (!assemblies.has(name)) rmSync(this.assemblyPath(name), { force: true });
    }
  }
}
