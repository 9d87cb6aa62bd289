import type { Statement } from 'better-sqlite3';
import type { Db } from './db';

/**
 * Watch roots and their file index (migration 003_sync). Rows are checked as they are
 * read. Every multi-row write is one transaction; callers pass batches (a few thousand
 * rows) so 100,000 files cost a few dozen commits, not 100,000.
 */

export interface WatchRootRecord {
  id: number;
  path: string;
  accountId: number;
  bucket: string;
  prefix: string;
  /** The stored options object; sync/options.ts normalizes it. */
  options: Record<string, unknown>;
  paused: boolean;
  /** Why the folder is unavailable, in English; null while it is not (or paused). */
  unavailableReason: string | null;
  /** The same by the error catalog's code and params (migration 11); null in rows written before it. */
  unavailableCode: string | null;
  unavailableParams: Record<string, string | number> | null;
  lastScanAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export const SYNC_FILE_STATES = ['queued', 'uploaded', 'failed', 'skipped', 'rejected', 'missing'] as const;
export type SyncFileState = (typeof SYNC_FILE_STATES)[number];

export interface SyncFileRecord {
  relPath: string;
  size: number;
  mtimeMs: number;
  etag: string | null;
  remoteKey: string | null;
  state: SyncFileState;
  transferId: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  missingSince: number | null;
}

/**
 * What a full scan compares a folder with: per relative path, the size, mtime and state of
 * its row, packed (≈ 70 bytes a row: the path and its Map slot, 17 bytes in typed arrays,
 * instead of ≈ 260 for a SyncFileRecord in a Map: 100,000 rows ≈ 7 MiB of heap instead of
 * ≈ 26). The scan reads the whole rows of the few files that need work (`getFile`).
 */
export interface IndexSummary {
  /** Each path's slot in the arrays below. */
  readonly slots: Map<string, number>;
  readonly size: Float64Array;
  readonly mtimeMs: Float64Array;
  /** The row's state, as its position in SYNC_FILE_STATES. */
  readonly state: Uint8Array;
}

export class SyncRepoError extends Error {
  override readonly name = 'SyncRepoError';
  constructor(
    readonly code: 'root-exists' | 'no-such-root' | 'bad-row',
    message: string,
  ) {
    super(message);
  }
}

interface RootRow {
  id: number;
  path: string;
  account_id: number;
  bucket: string;
  prefix: string;
  options_json: string;
  paused: number;
  unavailable_reason: string | null;
  unavailable_code: string | null;
  unavailable_params_json: string | null;
  last_scan_at: number | null;
  created_at: number;
  updated_at: number;
}

interface FileRow {
  rel_path: string;
  size: number;
  mtime_ms: number;
  etag: string | null;
  remote_key: string | null;
  state: string;
  transfer_id: number | null;
  error_code: string | null;
  error_message: string | null;
  missing_since: number | null;
}

const STATE_SET: ReadonlySet<string> = new Set(SYNC_FILE_STATES);
const STATE_INDEX: ReadonlyMap<string, number> = new Map(SYNC_FILE_STATES.map((s, i) => [s, i]));

function rootFromRow(r: RootRow): WatchRootRecord {
  const options: unknown = JSON.parse(r.options_json);
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new SyncRepoError('bad-row', `watch root ${r.id}: options_json is not a JSON object`);
  return {
    id: r.id,
    path: r.path,
    accountId: r.account_id,
    bucket: r.bucket,
    prefix: r.prefix,
    options: options as Record<string, unknown>,
    paused: r.paused === 1,
    unavailableReason: r.unavailable_reason,
    unavailableCode: r.unavailable_code,
    unavailableParams: r.unavailable_params_json === null ? null : paramsOf(r),
    lastScanAt: r.last_scan_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The params of a root's unavailable reason: a JSON object of strings and numbers. */
function paramsOf(r: RootRow): Record<string, string | number> {
  const params: unknown = JSON.parse(r.unavailable_params_json!);
  const ok =
    typeof params === 'object' &&
    params !== null &&
    !Array.isArray(params) &&
    Object.values(params).every((v) => typeof v === 'string' || typeof v === 'number');
  if (!ok) throw new SyncRepoError('bad-row', `watch root ${r.id}: unavailable_params_json is not an object of values`);
  return params as Record<string, string | number>;
}

function fileFromRow(r: FileRow): SyncFileRecord {
  if (!STATE_SET.has(r.state)) throw new SyncRepoError('bad-row', `sync file ${r.rel_path}: unknown state ${r.state}`);
  return {
    relPath: r.rel_path,
    size: r.size,
    mtimeMs: r.mtime_ms,
    etag: r.etag,
    remoteKey: r.remote_key,
    state: r.state as SyncFileState,
    transferId: r.transfer_id,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    missingSince: r.missing_since,
  };
}

const FILE_COLS =
  'rel_path, size, mtime_ms, etag, remote_key, state, transfer_id, error_code, error_message, missing_since';

export class SyncRepo {
  private readonly s: {
    upsert: Statement;
    del: Statement;
    get: Statement;
    byTransfer: Statement;
    missingBySize: Statement;
    all: Statement;
    summary: Statement;
    count: Statement;
    markMissing: Statement;
  };

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.s = {
      upsert: db.prepare(`INSERT INTO sync_files (root_id, ${FILE_COLS}, updated_at)
        VALUES (@rootId, @relPath, @size, @mtimeMs, @etag, @remoteKey, @state, @transferId, @errorCode, @errorMessage, @missingSince, @updatedAt)
        ON CONFLICT (root_id, rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, etag = excluded.etag,
          remote_key = excluded.remote_key, state = excluded.state, transfer_id = excluded.transfer_id, error_code = excluded.error_code,
          error_message = excluded.error_message, missing_since = excluded.missing_since, updated_at = excluded.updated_at`),
      del: db.prepare('DELETE FROM sync_files WHERE root_id = ? AND rel_path = ?'),
      get: db.prepare(`SELECT ${FILE_COLS} FROM sync_files WHERE root_id = ? AND rel_path = ?`),
      byTransfer: db.prepare(`SELECT root_id, ${FILE_COLS} FROM sync_files WHERE transfer_id = ?`),
      missingBySize: db.prepare(
        `SELECT ${FILE_COLS} FROM sync_files WHERE root_id = ? AND state = 'missing' AND size = ?`,
      ),
      all: db.prepare(`SELECT ${FILE_COLS} FROM sync_files WHERE root_id = ?`),
      summary: db.prepare('SELECT rel_path, size, mtime_ms, state FROM sync_files WHERE root_id = ?').raw(true),
      count: db.prepare('SELECT count(*) FROM sync_files WHERE root_id = ?').pluck(true),
      markMissing: db.prepare(
        'UPDATE sync_files SET state = ?, missing_since = ?, updated_at = ? WHERE root_id = ? AND rel_path = ?',
      ),
    };
  }

  // ---- roots ----

  listRoots(): WatchRootRecord[] {
    return (this.db.prepare('SELECT * FROM watch_roots ORDER BY id').all() as RootRow[]).map(rootFromRow);
  }

  getRoot(id: number): WatchRootRecord | undefined {
    const r = this.db.prepare('SELECT * FROM watch_roots WHERE id = ?').get(id) as RootRow | undefined;
    return r && rootFromRow(r);
  }

  findRootByPath(path: string): WatchRootRecord | undefined {
    const r = this.db.prepare('SELECT * FROM watch_roots WHERE path = ?').get(path) as RootRow | undefined;
    return r && rootFromRow(r);
  }

  addRoot(a: {
    path: string;
    accountId: number;
    bucket: string;
    prefix: string;
    options: Record<string, unknown>;
  }): WatchRootRecord {
    const now = this.now();
    try {
      const info = this.db
        .prepare(
          'INSERT INTO watch_roots (path, account_id, bucket, prefix, options_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(a.path, a.accountId, a.bucket, a.prefix, JSON.stringify(a.options), now, now);
      return this.getRoot(Number(info.lastInsertRowid))!;
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
        throw new SyncRepoError('root-exists', `${a.path} is already a watched folder`);
      throw e;
    }
  }

  updateRoot(
    id: number,
    patch: Partial<{
      accountId: number;
      bucket: string;
      prefix: string;
      options: Record<string, unknown>;
      paused: boolean;
      unavailableReason: string | null;
      unavailableCode: string | null;
      unavailableParams: Record<string, string | number> | null;
      lastScanAt: number;
    }>,
  ): WatchRootRecord {
    const sets: string[] = [];
    const vals: unknown[] = [];
    const put = (col: string, v: unknown) => {
      sets.push(`${col} = ?`);
      vals.push(v);
    };
    if (patch.accountId !== undefined) put('account_id', patch.accountId);
    if (patch.bucket !== undefined) put('bucket', patch.bucket);
    if (patch.prefix !== undefined) put('prefix', patch.prefix);
    if (patch.options !== undefined) put('options_json', JSON.stringify(patch.options));
    if (patch.paused !== undefined) put('paused', patch.paused ? 1 : 0);
    if (patch.unavailableReason !== undefined) put('unavailable_reason', patch.unavailableReason);
    if (patch.unavailableCode !== undefined) put('unavailable_code', patch.unavailableCode);
    if (patch.unavailableParams !== undefined)
      put('unavailable_params_json', patch.unavailableParams === null ? null : JSON.stringify(patch.unavailableParams));
    if (patch.lastScanAt !== undefined) put('last_scan_at', patch.lastScanAt);
    put('updated_at', this.now());
    const info = this.db.prepare(`UPDATE watch_roots SET ${sets.join(', ')} WHERE id = ?`).run(...vals, id);
    if (info.changes === 0) throw new SyncRepoError('no-such-root', `no watched folder with id ${id}`);
    return this.getRoot(id)!;
  }

  /** Removes a root and its whole index (the queue's transfers stay). */
  removeRoot(id: number): void {
    this.db.prepare('DELETE FROM watch_roots WHERE id = ?').run(id);
  }

  // ---- file index ----

  /** The whole index of a root, by relative path (≈ 200 bytes a row: 100k rows ≈ 20 MB). */
  loadIndex(rootId: number): Map<string, SyncFileRecord> {
    const map = new Map<string, SyncFileRecord>();
    for (const r of this.s.all.iterate(rootId) as Iterable<FileRow>) map.set(r.rel_path, fileFromRow(r));
    return map;
  }

  /** The root's index as a full scan needs it (IndexSummary); rows are checked as loadIndex checks them. */
  loadIndexSummary(rootId: number): IndexSummary {
    const n = this.s.count.get(rootId) as number;
    const slots = new Map<string, number>();
    const size = new Float64Array(n);
    const mtimeMs = new Float64Array(n);
    const state = new Uint8Array(n);
    let i = 0;
    for (const [relPath, sz, mtime, st] of this.s.summary.iterate(rootId) as Iterable<
      [string, number, number, string]
    >) {
      const k = STATE_INDEX.get(st);
      if (k === undefined) throw new SyncRepoError('bad-row', `sync file ${relPath}: unknown state ${st}`);
      if (i === n) break; // one connection, synchronous: the count cannot change under the loop
      slots.set(relPath, i);
      size[i] = sz;
      mtimeMs[i] = mtime;
      state[i] = k;
      i++;
    }
    return { slots, size, mtimeMs, state };
  }

  /** Marks rows `missing` since `since` (a full scan did not find their files), in one transaction. */
  markMissing(rootId: number, relPaths: readonly string[], since: number): void {
    const now = this.now();
    this.db.transaction(() => {
      for (const p of relPaths) this.s.markMissing.run('missing', since, now, rootId, p);
    })();
  }

  getFile(rootId: number, relPath: string): SyncFileRecord | undefined {
    const r = this.s.get.get(rootId, relPath) as FileRow | undefined;
    return r && fileFromRow(r);
  }

  /** Inserts or replaces rows, all in one transaction. */
  putFiles(rootId: number, files: readonly SyncFileRecord[]): void {
    const now = this.now();
    this.db.transaction(() => {
      for (const f of files) this.s.upsert.run({ rootId, ...f, updatedAt: now });
    })();
  }

  deleteFiles(rootId: number, relPaths: readonly string[]): void {
    this.db.transaction(() => {
      for (const p of relPaths) this.s.del.run(rootId, p);
    })();
  }

  /** Rows of files at or below a folder ('' = the whole root). */
  filesUnder(rootId: number, relDir: string): SyncFileRecord[] {
    if (relDir === '') return [...this.loadIndex(rootId).values()];
    const rows = this.db
      .prepare(
        `SELECT ${FILE_COLS} FROM sync_files WHERE root_id = ? AND (rel_path = ? OR (rel_path >= ? AND rel_path < ?))`,
      )
      .all(rootId, relDir, `${relDir}/`, `${relDir}0`) as FileRow[];
    return rows.map(fileFromRow);
  }

  /** The root and row a transfer of the queue belongs to, if a watch root queued it. */
  findByTransfer(transferId: number): { rootId: number; file: SyncFileRecord } | undefined {
    const r = this.s.byTransfer.get(transferId) as (FileRow & { root_id: number }) | undefined;
    return r && { rootId: r.root_id, file: fileFromRow(r) };
  }

  /** Rows waiting as `missing` with this size: the candidates a new file may be a rename of. */
  missingWithSize(rootId: number, size: number): SyncFileRecord[] {
    return (this.s.missingBySize.all(rootId, size) as FileRow[]).map(fileFromRow);
  }

  missingSince(rootId: number, beforeMs: number): SyncFileRecord[] {
    return (
      this.db
        .prepare(`SELECT ${FILE_COLS} FROM sync_files WHERE root_id = ? AND state = 'missing' AND missing_since <= ?`)
        .all(rootId, beforeMs) as FileRow[]
    ).map(fileFromRow);
  }

  /** The first `limit` files of a root in one state, by path. */
  filesInState(rootId: number, state: SyncFileState, limit: number): SyncFileRecord[] {
    return (
      (
        this.db
          // Named: without statistics the planner walks the whole root by path instead (100,000 rows for none).
          .prepare(
            `SELECT ${FILE_COLS} FROM sync_files INDEXED BY sync_files_state WHERE root_id = ? AND state = ? ORDER BY rel_path LIMIT ?`,
          )
          .all(rootId, state, limit) as FileRow[]
      ).map(fileFromRow)
    );
  }

  countByState(rootId: number): Record<SyncFileState, number> {
    const out = Object.fromEntries(SYNC_FILE_STATES.map((s) => [s, 0])) as Record<SyncFileState, number>;
    for (const r of this.db.prepare('SELECT state, n FROM sync_file_counts WHERE root_id = ?').all(rootId) as Array<{
      state: string;
      n: number;
    }>) {
      if (STATE_SET.has(r.state)) out[r.state as SyncFileState] = r.n;
    }
    return out;
  }

  /**
   * An unfinished watch transfer (not done, failed, canceled or skipped) of exactly this
   * file and requested key: what a crash between enqueuing and recording the id left
   * behind. The transfers table lives in the same database (migration 001).
   */
  findUnfinishedTransfer(q: { accountId: number; bucket: string; key: string; localPath: string }): number | undefined {
    const r = this.db
      .prepare(
        `SELECT id FROM transfers WHERE local_path = ? AND account_id = ? AND bucket = ? AND requested_key = ? AND source = 'watch'
           AND state NOT IN ('done','failed','canceled','skipped') ORDER BY id DESC LIMIT 1`,
      )
      .get(q.localPath, q.accountId, q.bucket, q.key) as { id: number } | undefined;
    return r?.id;
  }

  /**
   * Throughput of the last `limit` finished uploads of this database: their bytes over the
   * span from the first one queued to the last one done (queue waits included: what a
   * user waits). Undefined when none is done.
   */
  recentThroughput(limit = 200): { bytes: number; seconds: number } | undefined {
    const r = this.db
      .prepare(
        `SELECT SUM(size) AS bytes, MIN(created_at) AS first, MAX(finished_at) AS last, COUNT(*) AS n FROM
           (SELECT size, created_at, finished_at FROM transfers WHERE state = 'done' AND finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT ?)`,
      )
      .get(limit) as { bytes: number | null; first: number | null; last: number | null; n: number };
    if (r.n === 0 || r.bytes === null || r.first === null || r.last === null) return undefined;
    return { bytes: r.bytes, seconds: Math.max(0, r.last - r.first) / 1000 };
  }

  /** Runs `fn` in one transaction (for a caller that writes the index and the queue together). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
