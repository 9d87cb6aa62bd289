import { bookSection, section } from '../base/loop-watch';
import { failureDetail, sqliteFailureOf } from '../base/sqlite-failure';
import path from 'node:path';
import type { TransferQueue } from '../engine/api';
import { etagOfFile } from '../protocol/etag';
import type { TransferRequest, TransferSnapshot } from '../shared/models';
import { TERMINAL_TRANSFER_STATES } from '../shared/models';
import type { SyncFileRecord, SyncRepo } from '../store/sync-repo';
import { mapKey } from './keymap';
import type { WatchRootOptions } from './options';
import { classifyFile, emptyCounts, type ScanCounts } from './reconcile';
import type { RemoteOps } from './remote-ops';
import { claimRename } from './rename-claim';
import type { ScannedFile } from './scanner';
import type { WatchRootEvent } from './events';
import { countToUpload, queuedRow, rejectedRow, settledRow, transferOutcome } from './index-rows';
import { problemEvent } from './problems';
import { isVideo } from './video';

/**
 * Rows and transfers are written this many at a time (one transaction each, a turn of the
 * loop between). Each file costs its two row writes, its transfer insert and that insert's
 * change event with what its listeners do: 250 at a time held serve's loop for 100–250 ms
 * on a busy machine in the long load's first scan of 100,000 files.
 */
export const INDEX_BATCH_FILES = 50;

export interface RootIdentity {
  id: number;
  path: string;
  accountId: number;
  bucket: string;
  prefix: string;
}

export interface RootIndexerDeps {
  root: RootIdentity;
  options: WatchRootOptions;
  repo: SyncRepo;
  queue: TransferQueue;
  remote?: RemoteOps;
  emit(e: WatchRootEvent): void;
  /** Aborted when the root closes: admit() stops at its next slice (AbortError), what it wrote stays consistent. */
  signal?: AbortSignal;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** The files once each by path, each with its last observation. */
function lastOfEach(files: readonly ScannedFile[]): Iterable<ScannedFile> {
  const byPath = new Map<string, ScannedFile>();
  for (const f of files) byPath.set(f.relPath, f);
  return byPath.values();
}

/**
 * The writer of a root's file index for what appears: decides what stable files need
 * (classifyFile), queues uploads in batches, hands renames to rename-claim.ts, and records
 * how transfers ended (the rows themselves: index-rows.ts). What disappears is
 * missing-files.ts's. Callers serialize calls (the watch root does).
 */
export class RootIndexer {
  constructor(private readonly d: RootIndexerDeps) {}

  private abs(relPath: string): string {
    return path.join(this.d.root.path, ...relPath.split('/'));
  }

  private transferState(row: SyncFileRecord | undefined) {
    if (!row || row.state !== 'queued' || row.transferId === null) return undefined;
    return this.d.queue.get(row.transferId)?.state ?? 'unknown';
  }

  /**
   * Takes stable files (from a scan or the watcher) and does what each needs; adds to the
   * counts and returns them. Rows are read one by one, and a file named twice counts once
   * (its last observation). A full scan passes `scan`: its files are unique (one walk, so
   * no Map of 100,000 paths is built to dedupe them), `rowOf` reads a file's row (the scan
   * knows which files have none), and its counts are added to.
   */
  async admit(
    files: readonly ScannedFile[],
    scan?: { rowOf(relPath: string): SyncFileRecord | undefined; counts: ScanCounts },
  ): Promise<ScanCounts> {
    const counts = scan?.counts ?? emptyCounts();
    const toQueue: Array<{ file: ScannedFile; key: string; orphan: boolean }> = [];
    const settle: SyncFileRecord[] = [];
    const unique = scan ? files : lastOfEach(files);
    let n = 0;
    let t = performance.now();
    for (const f of unique) {
      // Each file may cost a query or two (its row, a rename's candidates): yield often.
      if (++n % 100 === 0) {
        bookSection('indexer.classify', performance.now() - t);
        await yieldToLoop();
        this.d.signal?.throwIfAborted();
        t = performance.now();
      }
      const row = scan ? scan.rowOf(f.relPath) : this.d.repo.getFile(this.d.root.id, f.relPath);
      const cls = classifyFile(row, f, this.transferState(row));
      if (cls === 'in-flight') {
        counts.inFlightFiles++;
        continue;
      }
      if (cls === 'unchanged') {
        counts.unchangedFiles++;
        counts.unchangedBytes += f.size;
        const settled = row && this.settledRow(row);
        if (settled) settle.push(settled);
        continue;
      }
      const mapped = mapKey(f.relPath, f.mtimeMs, {
        prefix: this.d.root.prefix,
        template: this.d.options.keyTemplate,
        timeZone: this.d.options.templateTimeZone,
      });
      if (!mapped.ok) {
        counts.rejectedFiles++;
        counts.rejected.push({ relPath: f.relPath, code: mapped.code, message: mapped.message });
        const rejected = this.newlyRejected(f, row, mapped);
        if (rejected) settle.push(rejected);
        continue;
      }
      if (cls === 'changed' && row) {
        const same = await this.sameBytesAsUploaded(row, f);
        if (same) {
          counts.unchangedFiles++;
          counts.unchangedBytes += f.size;
          settle.push(same);
          continue;
        }
      }
      if (cls === 'new' && (await claimRename(this.d, f, mapped.key))) {
        counts.renamedFiles++;
        continue;
      }
      countToUpload(counts, cls, f.size);
      // A row queued without a transfer id: an older run stopped between enqueue and recording the id.
      toQueue.push({ file: f, key: mapped.key, orphan: row?.state === 'queued' && row.transferId === null });
    }
    bookSection('indexer.classify', performance.now() - t);
    if (settle.length)
      section('indexer.settle', () =>
        this.eachAlone(
          settle,
          (rows) => this.d.repo.putFiles(this.d.root.id, rows),
          (row) => row.relPath,
        ),
      );
    // A batch is one transaction: a close between two leaves whole batches queued, and the
    // next scan queues the rest (the rows of those queued say so: nothing is queued twice).
    for (let i = 0; i < toQueue.length; i += INDEX_BATCH_FILES) {
      this.d.signal?.throwIfAborted();
      section('indexer.queueBatch', () =>
        this.eachAlone(
          toQueue.slice(i, i + INDEX_BATCH_FILES),
          (items) => this.queueBatch(items),
          (item) => item.file.relPath,
        ),
      );
      if (i + INDEX_BATCH_FILES < toQueue.length) await yieldToLoop();
    }
    return counts;
  }

  /**
   * Writes `items` in one transaction (`write`); when the database refuses the data of a row
   * (a constraint, a trigger: sqliteFailureOf 'row'), writes them one by one instead, so one
   * bad row does not hold back the others, and reports each refused file as a problem. A
   * refused file keeps the row it had (a new file: none), so it is tried again when it
   * changes or the folder is scanned; the scan's counts still count it where it was classified.
   * Any other failure is thrown (the caller retries, holds or reports the whole batch).
   */
  private eachAlone<T>(
    items: readonly T[],
    write: (items: readonly T[]) => void,
    relPathOf: (item: T) => string,
  ): void {
    try {
      write(items);
      return;
    } catch (e) {
      if (sqliteFailureOf(e) !== 'row') throw e;
      if (items.length === 1) return this.refused(relPathOf(items[0]!), e);
    }
    for (const item of items) {
      try {
        write([item]);
      } catch (e) {
        if (sqliteFailureOf(e) !== 'row') throw e;
        this.refused(relPathOf(item), e);
      }
    }
  }

  private refused(relPath: string, e: unknown): void {
    this.d.emit(problemEvent(this.d.root.id, relPath, 'file-not-queued', { path: relPath, detail: failureDetail(e) }));
  }

  /**
   * A file whose size and mtime differ from its row but whose bytes are what was uploaded: rewritten with the
   * same content, or (the case that matters) rewritten while its upload ran, so the upload sent the new bytes
   * but the row still holds the old version's mtime. Uploading it again would store the same version twice.
   * Hashes the file only when its size is the uploaded one; returns the row that records it as uploaded.
   */
  private async sameBytesAsUploaded(row: SyncFileRecord, f: ScannedFile): Promise<SyncFileRecord | undefined> {
    let uploaded: { etag: string; size: number; key: string } | undefined;
    if (row.state === 'uploaded' && row.etag !== null && row.remoteKey !== null)
      uploaded = { etag: row.etag, size: row.size, key: row.remoteKey };
    else if (row.state === 'queued' && row.transferId !== null) {
      const t = this.d.queue.get(row.transferId);
      if (t?.state === 'done' && t.etag !== null) uploaded = { etag: t.etag, size: t.size, key: t.key };
    }
    if (!uploaded || uploaded.size !== f.size) return undefined;
    let etag: string;
    try {
      etag = (await etagOfFile(this.abs(f.relPath))).etag;
    } catch {
      return undefined; // unreadable now: the upload path reports it
    }
    if (etag !== uploaded.etag) return undefined;
    return {
      ...row,
      size: f.size,
      mtimeMs: f.mtimeMs,
      state: 'uploaded',
      etag,
      remoteKey: uploaded.key,
      errorCode: null,
      errorMessage: null,
      missingSince: null,
    };
  }

  /** The row of an unchanged file that was missing or queued, as it stands now (uploaded or skipped). */
  private settledRow(row: SyncFileRecord): SyncFileRecord | undefined {
    if (row.state !== 'missing' && row.state !== 'queued') return undefined;
    const done = row.state === 'queued' && row.transferId !== null ? this.d.queue.get(row.transferId) : undefined;
    return settledRow(row, done);
  }

  /** The rejected row of a file whose key cannot be used, emitted once (undefined when already recorded so). */
  private newlyRejected(
    f: ScannedFile,
    row: SyncFileRecord | undefined,
    why: { code: string; message: string },
  ): SyncFileRecord | undefined {
    if (row?.state === 'rejected' && row.errorCode === why.code) return undefined;
    this.d.emit({ type: 'rejected', rootId: this.d.root.id, relPath: f.relPath, code: why.code, message: why.message });
    return rejectedRow(f, why);
  }

  /**
   * Rows, the queue and the ids in one transaction (the repo and the engine share the Db
   * handle in the core; better-sqlite3 nests the engine's own transaction as a savepoint),
   * so a crash leaves either all of a batch or none of it. Should a row still be queued
   * without an id (a queue on another handle, or a database from before this change), the
   * unfinished transfer of the same account, bucket, key and path is adopted instead of
   * queueing the file a second time.
   */
  private queueBatch(items: ReadonlyArray<{ file: ScannedFile; key: string; orphan: boolean }>): void {
    const { root, options } = this.d;
    const rows: SyncFileRecord[] = items.map(({ file }) => queuedRow(file));
    const requests: TransferRequest[] = items.map(({ file, key }) => ({
      accountId: root.accountId,
      bucket: root.bucket,
      key,
      localPath: this.abs(file.relPath),
      size: file.size,
      source: 'watch',
      options: {
        conflict: options.conflict,
        ...(options.deadlineDays !== undefined ? { deadlineDays: options.deadlineDays } : {}),
      },
    }));
    const ids = this.d.repo.transaction(() => {
      this.d.repo.putFiles(root.id, rows);
      const out: number[] = requests.map((r, i) =>
        items[i]?.orphan ? (this.d.repo.findUnfinishedTransfer(r) ?? -1) : -1,
      );
      const fresh = requests.filter((_, i) => out[i] === -1);
      const freshIds = fresh.length ? this.d.queue.enqueue(fresh) : [];
      let k = 0;
      for (let i = 0; i < out.length; i++) if (out[i] === -1) out[i] = freshIds[k++] ?? -1;
      rows.forEach((r, i) => (r.transferId = out[i] !== undefined && out[i] !== -1 ? out[i] : null));
      this.d.repo.putFiles(root.id, rows);
      return out;
    });
    this.d.emit({
      type: 'queued',
      rootId: root.id,
      files: items.map(({ file, key }, i) => ({
        relPath: file.relPath,
        key,
        size: file.size,
        transferId: ids[i] ?? -1,
      })),
    });
  }

  /**
   * Records how one of this root's transfers ended. Returns the row's relative path when
   * the transfer was this root's and terminal (the caller re-checks the file: it may have
   * changed during the upload), else undefined.
   */
  onTransfer(t: TransferSnapshot): string | undefined {
    return section('indexer.onTransfer', () => this.recordOutcome(t));
  }

  private recordOutcome(t: TransferSnapshot): string | undefined {
    if (t.source !== 'watch' || !TERMINAL_TRANSFER_STATES.includes(t.state)) return undefined;
    const hit = this.d.repo.findByTransfer(t.id);
    if (!hit || hit.rootId !== this.d.root.id || hit.file.state !== 'queued') return undefined;
    const f = hit.file;
    const { row, status } = transferOutcome(f, t);
    this.d.repo.putFiles(this.d.root.id, [row]);
    const vca = t.state === 'done' && this.d.options.vcaForVideos && isVideo(f.relPath);
    this.d.emit({
      type: 'file-done',
      rootId: this.d.root.id,
      relPath: f.relPath,
      key: t.key,
      etag: t.etag,
      size: f.size,
      status,
      ...(t.lastError ? { error: t.lastError } : {}),
      ...(vca ? { vcaRequested: true } : {}),
    });
    return f.relPath;
  }
}
