import type { Statement } from 'better-sqlite3';
import type { BlockRecord, EngineStore, StoredCopySource, TransferPatch, TransferRecord } from '../engine/ports';
import {
  TRANSFER_STATES,
  type ConflictPolicy,
  type TransferOptions,
  type TransferRequest,
  type TransferSource,
  type TransferState,
} from '../shared/models';
import type { Db } from './db';
import { StoredBytesQuery } from './stored-bytes';

/**
 * The engine's store (engine/ports.ts EngineStore) over the 001_core tables. Statements are
 * prepared once; commitChunk is the hot one (one row update per chunk reply).
 */

interface TransferRow {
  id: number;
  account_id: number;
  bucket: string;
  key: string;
  requested_key: string;
  local_path: string;
  size: number;
  mtime_ms: number;
  state: string;
  batch: string | null;
  block_size: number;
  etag: string | null;
  remote_hash: string | null;
  attempts: number;
  last_error_code: string | null;
  last_error_message: string | null;
  warning: string | null;
  source: string;
  options_json: string;
  return_body_json: string | null;
  copied_from_bucket: string | null;
  copied_from_key: string | null;
  priority: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

interface BlockRow {
  idx: number;
  size: number;
  next_offset: number;
  last_ctx: string | null;
  ctx_time_ms: number | null;
  unit_sha1s: Buffer;
}

const STATES: ReadonlySet<string> = new Set(TRANSFER_STATES);
const SOURCES: ReadonlySet<string> = new Set(['watch', 'manual', 'cli']);

export class StoreDataError extends Error {
  override readonly name = 'StoreDataError';
}

function parseJsonObject(text: string | null, what: string): Record<string, unknown> | null {
  if (text === null) return null;
  const v: unknown = JSON.parse(text);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new StoreDataError(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

/** Validates a row read back (a row written by another version must not crash the engine). */
function toRecord(r: TransferRow): TransferRecord {
  if (!STATES.has(r.state)) throw new StoreDataError(`transfer ${r.id} has an unknown state "${r.state}"`);
  if (!SOURCES.has(r.source)) throw new StoreDataError(`transfer ${r.id} has an unknown source "${r.source}"`);
  return {
    id: r.id,
    accountId: r.account_id,
    bucket: r.bucket,
    key: r.key,
    requestedKey: r.requested_key,
    localPath: r.local_path,
    size: r.size,
    mtimeMs: r.mtime_ms,
    state: r.state as TransferState,
    batch: r.batch,
    blockSize: r.block_size,
    etag: r.etag,
    remoteHash: r.remote_hash,
    attempts: r.attempts,
    lastError: r.last_error_code === null ? null : { code: r.last_error_code, message: r.last_error_message ?? '' },
    warning: r.warning,
    source: r.source as TransferSource,
    options: (parseJsonObject(r.options_json, `options of transfer ${r.id}`) ?? {}) as TransferOptions,
    returnBody: parseJsonObject(r.return_body_json, `returnBody of transfer ${r.id}`),
    copiedFrom:
      r.copied_from_bucket === null || r.copied_from_key === null
        ? null
        : { bucket: r.copied_from_bucket, key: r.copied_from_key },
    priority: r.priority,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

const PATCH_COLUMNS: Record<Exclude<keyof TransferPatch, 'lastError' | 'returnBody' | 'copiedFrom'>, string> = {
  key: 'key',
  size: 'size',
  mtimeMs: 'mtime_ms',
  state: 'state',
  batch: 'batch',
  etag: 'etag',
  remoteHash: 'remote_hash',
  attempts: 'attempts',
  warning: 'warning',
  finishedAt: 'finished_at',
};

export class SqliteTransferStore implements EngineStore {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly blocksOf: Statement;
  private readonly commit: Statement;
  private readonly clearBlock: Statement;
  private readonly dropBlocks: Statement;
  private readonly addBlock: Statement;
  private readonly setBatch: Statement;
  private readonly addEvent: Statement;
  private readonly storedBytes: StoredBytesQuery;
  /** Statements whose SQL depends on the call's shape (patched columns, number of states). */
  private readonly patchCache = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.insert = db.prepare(
      `INSERT INTO transfers (account_id, bucket, key, requested_key, local_path, size, state, block_size, source, options_json, priority, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
    );
    this.byId = db.prepare('SELECT * FROM transfers WHERE id = ?');
    this.blocksOf = db.prepare(
      'SELECT idx, size, next_offset, last_ctx, ctx_time_ms, unit_sha1s FROM blocks WHERE transfer_id = ? ORDER BY idx',
    );
    this.commit = db.prepare(
      'UPDATE blocks SET next_offset = ?, last_ctx = ?, ctx_time_ms = ?, unit_sha1s = ? WHERE transfer_id = ? AND idx = ?',
    );
    this.clearBlock = db.prepare(
      `UPDATE blocks SET next_offset = 0, last_ctx = NULL, ctx_time_ms = NULL, unit_sha1s = x'', restarts = restarts + 1
       WHERE transfer_id = ? AND idx = ?`,
    );
    this.dropBlocks = db.prepare('DELETE FROM blocks WHERE transfer_id = ?');
    this.addBlock = db.prepare('INSERT INTO blocks (transfer_id, idx, size) VALUES (?, ?, ?)');
    this.setBatch = db.prepare('UPDATE transfers SET batch = ?, size = ?, mtime_ms = ?, updated_at = ? WHERE id = ?');
    this.storedBytes = new StoredBytesQuery(db);
    this.addEvent = db.prepare(
      'INSERT INTO event_log (at, level, kind, transfer_id, message, data_json) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  insertTransfers(
    requests: readonly TransferRequest[],
    defaults: { blockSize: number; conflict: ConflictPolicy },
  ): number[] {
    const t = this.now();
    return this.db.transaction(() =>
      requests.map((r) => {
        const options: TransferOptions = { ...r.options, conflict: r.options?.conflict ?? defaults.conflict };
        const info = this.insert.run(
          r.accountId,
          r.bucket,
          r.key,
          r.key,
          r.localPath,
          r.size ?? 0,
          r.blockSize ?? defaults.blockSize,
          r.source,
          JSON.stringify(options),
          r.priority ?? 0,
          t,
          t,
        );
        return Number(info.lastInsertRowid);
      }),
    )();
  }

  getTransfer(id: number): TransferRecord | undefined {
    const row = this.byId.get(id) as TransferRow | undefined;
    return row && toRecord(row);
  }

  listTransfers(states: readonly TransferState[], limit = -1): TransferRecord[] {
    if (states.length === 0) return [];
    const rows = this.cached(
      `SELECT * FROM transfers WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY priority DESC, id LIMIT ?`,
    ).all(...states, limit) as TransferRow[];
    return rows.map(toRecord);
  }

  /** A statement prepared once per distinct SQL text (a handful: one per shape of call). */
  private cached(sql: string): Statement {
    let stmt = this.patchCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.patchCache.set(sql, stmt);
    }
    return stmt;
  }

  updateTransfer(id: number, patch: TransferPatch): TransferRecord | undefined {
    const cols: string[] = [];
    const values: unknown[] = [];
    for (const [name, col] of Object.entries(PATCH_COLUMNS)) {
      if (name in patch) {
        cols.push(col);
        values.push(patch[name as keyof typeof PATCH_COLUMNS] ?? null);
      }
    }
    if ('lastError' in patch) {
      cols.push('last_error_code', 'last_error_message');
      values.push(patch.lastError?.code ?? null, patch.lastError?.message ?? null);
    }
    if ('returnBody' in patch) {
      cols.push('return_body_json');
      values.push(patch.returnBody ? JSON.stringify(patch.returnBody) : null);
    }
    if ('copiedFrom' in patch) {
      cols.push('copied_from_bucket', 'copied_from_key');
      values.push(patch.copiedFrom?.bucket ?? null, patch.copiedFrom?.key ?? null);
    }
    cols.push('updated_at');
    values.push(this.now());
    // RETURNING: the row as written, so a change event needs no second read (one per state change).
    const row = this.cached(
      `UPDATE transfers SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ? RETURNING *`,
    ).get(...values, id) as TransferRow | undefined;
    return row && toRecord(row);
  }

  moveStates(from: readonly TransferState[], to: TransferState): number {
    if (from.length === 0) return 0;
    return this.cached(
      `UPDATE transfers SET state = ?, updated_at = ? WHERE state IN (${from.map(() => '?').join(',')})`,
    ).run(to, this.now(), ...from).changes;
  }

  listBlocks(transferId: number): BlockRecord[] {
    return (this.blocksOf.all(transferId) as BlockRow[]).map((b) => ({
      index: b.idx,
      size: b.size,
      nextOffset: b.next_offset,
      lastCtx: b.last_ctx,
      ctxTimeMs: b.ctx_time_ms,
      unitSha1s: b.unit_sha1s,
    }));
  }

  resetBlocks(
    transferId: number,
    batch: string,
    sizeBytes: number,
    mtimeMs: number,
    blockSizes: readonly number[],
  ): void {
    this.db.transaction(() => {
      this.dropBlocks.run(transferId);
      blockSizes.forEach((size, i) => this.addBlock.run(transferId, i, size));
      this.setBatch.run(batch, sizeBytes, mtimeMs, this.now(), transferId);
    })();
  }

  resetBlock(transferId: number, index: number): void {
    this.clearBlock.run(transferId, index);
  }

  commitChunk(
    transferId: number,
    index: number,
    nextOffset: number,
    ctx: string,
    ctxTimeMs: number,
    unitSha1s: Buffer,
  ): void {
    const r = this.commit.run(nextOffset, ctx, ctxTimeMs, unitSha1s, transferId, index);
    if (r.changes !== 1) throw new StoreDataError(`block ${index} of transfer ${transferId} is not in the database`);
  }

  /**
   * The newest transfer of the same file to the same place, in any state (a re-run of the
   * same command continues it, or reports it when it is done and the file unchanged).
   */
  findLatest(accountId: number, bucket: string, requestedKey: string, localPath: string): TransferRecord | undefined {
    // Prepared once: transfers.add asks this for every file it adds (10,000 in one call).
    const row = this.cached(
      'SELECT * FROM transfers WHERE account_id = ? AND bucket = ? AND requested_key = ? AND local_path = ? ORDER BY id DESC LIMIT 1',
    ).get(accountId, bucket, requestedKey, localPath) as TransferRow | undefined;
    return row && toRecord(row);
  }

  deleteBlocks(transferId: number): void {
    this.dropBlocks.run(transferId);
  }

  batch<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  storedOfSize(accountId: number, size: number): boolean {
    return this.storedBytes.anyOfSize(accountId, size);
  }

  storedWithBytes(accountId: number, size: number, etag: string, limit: number): StoredCopySource[] {
    return this.storedBytes.withBytes(accountId, size, etag, limit);
  }

  forgetStored(accountId: number, bucket: string, key: string): void {
    this.storedBytes.forget(accountId, bucket, key);
  }

  /**
   * A transfer's final state and the removal of its blocks, in one transaction; with it, what
   * its end says of the object at its key (stored-bytes.ts `recordEnd`), which outlives the row.
   * Returns the record as written.
   */
  finishTransfer(id: number, patch: TransferPatch): TransferRecord | undefined {
    return this.db.transaction(() => {
      this.dropBlocks.run(id);
      const rec = this.updateTransfer(id, patch);
      if (rec) this.storedBytes.recordEnd(rec, this.now());
      return rec;
    })();
  }

  logEvent(e: {
    level: 'info' | 'warn' | 'error';
    kind: string;
    transferId?: number;
    message: string;
    data?: unknown;
  }): void {
    this.addEvent.run(
      this.now(),
      e.level,
      e.kind,
      e.transferId ?? null,
      e.message,
      e.data === undefined ? null : JSON.stringify(e.data),
    );
  }
}
