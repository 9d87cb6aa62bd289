import path from 'node:path';
import { etagOfFile } from '../protocol/etag';
import type { SyncFileRecord } from '../store/sync-repo';
import type { TransferState } from '../shared/models';
import { mapKey } from './keymap';
import type { WatchRootOptions } from './options';
import { PathFilter } from './path-filter';
import { bytesToUpload, classifyFile, emptyCounts, type ScanCounts } from './reconcile';
import { scanTree } from './scanner';
import { stabilityVerdict } from './stability';

/**
 * The dry run: what adding a root (or `watch --dry-run`) would do, without writing
 * anything or contacting the service. Same classification as the live root (reconcile.ts).
 */
export interface SyncPlan extends ScanCounts {
  filesToUpload: number;
  bytesToUpload: number;
  /** Estimate at `assumedBytesPerSecond` plus a fixed cost per file; null when nothing to upload. */
  estimatedSeconds: number | null;
  assumedBytesPerSecond: number;
  /** 'measured': this database's recent transfers; 'default': DEFAULT_ASSUMED_BYTES_PER_SECOND. */
  speedSource: 'measured' | 'default';
}

/** Measured on the development machines: ≈ 150 small files a second end to end on two cores. */
export const PER_FILE_OVERHEAD_S = 1 / 150;
export const DEFAULT_ASSUMED_BYTES_PER_SECOND = 20 * 1024 * 1024;

/** Below these, a measurement says too little to estimate from. */
export const MIN_MEASURED_BYTES = 1024 * 1024;
export const MIN_MEASURED_SECONDS = 1;

/**
 * The speed an estimate assumes: the measured throughput of this database's recent
 * transfers (bytes over seconds) when there is enough of it, else the default.
 */
export function chooseEstimateSpeed(measured: { bytes: number; seconds: number } | undefined): {
  bytesPerSecond: number;
  source: 'measured' | 'default';
} {
  if (measured && measured.bytes >= MIN_MEASURED_BYTES && measured.seconds >= MIN_MEASURED_SECONDS) {
    return { bytesPerSecond: measured.bytes / measured.seconds, source: 'measured' };
  }
  return { bytesPerSecond: DEFAULT_ASSUMED_BYTES_PER_SECOND, source: 'default' };
}

export interface PlanInput {
  root: string;
  prefix: string;
  options: WatchRootOptions;
  excludedDirs?: readonly string[];
  /** The root's index when it exists already; empty for a new root. */
  index?: ReadonlyMap<string, SyncFileRecord>;
  /** State of a queued row's transfer, when a queue is at hand. */
  transferState?: (transferId: number) => TransferState | undefined;
  /** Upload speed to assume for the estimate (measured when known, see chooseEstimateSpeed); default DEFAULT_ASSUMED_BYTES_PER_SECOND. */
  bytesPerSecond?: number;
  speedSource?: 'measured' | 'default';
  /** Whether renames would be done server-side (a RemoteOps is wired). */
  remoteAvailable?: boolean;
  signal?: AbortSignal;
}

export async function planRoot(p: PlanInput): Promise<SyncPlan> {
  const filter = new PathFilter({ ...p.options, excludedDirs: p.excludedDirs });
  const index = p.index ?? new Map<string, SyncFileRecord>();
  const counts = emptyCounts();
  const seen = new Set<string>();
  const newBySize: Array<{ relPath: string; size: number }> = [];
  const unreadable: string[] = [];
  const now = Date.now();
  for await (const dir of scanTree({ root: p.root, filter, symlinks: p.options.symlinks, signal: p.signal })) {
    counts.ignoredFiles += dir.ignoredFiles;
    counts.ignoredBytes += dir.ignoredBytes;
    counts.problems.push(...dir.problems);
    for (const pr of dir.problems)
      if (pr.code === 'permission-denied' || pr.code === 'unreadable') unreadable.push(pr.relPath);
    for (const f of dir.files) {
      seen.add(f.relPath);
      const row = index.get(f.relPath);
      const state = row?.transferId != null ? (p.transferState?.(row.transferId) ?? 'unknown') : undefined;
      const cls = classifyFile(row, f, state);
      if (cls === 'in-flight') {
        counts.inFlightFiles++;
        continue;
      }
      if (cls === 'unchanged') {
        counts.unchangedFiles++;
        counts.unchangedBytes += f.size;
        continue;
      }
      const mapped = mapKey(f.relPath, f.mtimeMs, {
        prefix: p.prefix,
        template: p.options.keyTemplate,
        timeZone: p.options.templateTimeZone,
      });
      if (!mapped.ok) {
        counts.rejectedFiles++;
        counts.rejected.push({ relPath: f.relPath, code: mapped.code, message: mapped.message });
        continue;
      }
      if (!stabilityVerdict(undefined, f, now, p.options.stabilityMs).ready) counts.waitingFiles++;
      if (cls === 'changed') {
        counts.changedFiles++;
        counts.changedBytes += f.size;
      } else if (cls === 'retry') {
        counts.retryFiles++;
        counts.retryBytes += f.size;
      } else {
        newBySize.push({ relPath: f.relPath, size: f.size });
      }
    }
  }
  const under = (rel: string) => unreadable.some((u) => rel === u || rel.startsWith(`${u}/`));
  const missing = [...index.values()].filter((r) => !seen.has(r.relPath) && !under(r.relPath));
  counts.missingFiles = missing.length;
  await countNewOrRenamed(p, missing, newBySize, counts);
  const filesToUpload = counts.newFiles + counts.changedFiles + counts.retryFiles;
  const bytes = bytesToUpload(counts);
  const bps = p.bytesPerSecond ?? DEFAULT_ASSUMED_BYTES_PER_SECOND;
  return {
    ...counts,
    filesToUpload,
    bytesToUpload: bytes,
    estimatedSeconds: filesToUpload === 0 ? null : bytes / bps + filesToUpload * PER_FILE_OVERHEAD_S,
    assumedBytesPerSecond: bps,
    speedSource: p.bytesPerSecond === undefined ? 'default' : (p.speedSource ?? 'measured'),
  };
}

/**
 * Counts each new file as renamed (a new file with the size and etag of a missing uploaded
 * row, when renames are done server-side; only then is a file read) or new.
 */
async function countNewOrRenamed(
  p: PlanInput,
  missing: readonly SyncFileRecord[],
  newBySize: ReadonlyArray<{ relPath: string; size: number }>,
  counts: ScanCounts,
): Promise<void> {
  const candidates = new Map<number, Set<string>>();
  if (p.remoteAvailable && p.options.rename === 'server-side') {
    for (const r of missing)
      if (r.etag && r.remoteKey) candidates.set(r.size, (candidates.get(r.size) ?? new Set()).add(r.etag));
  }
  for (const f of newBySize) {
    const etags = candidates.get(f.size);
    if (etags) {
      const etag = await etagOfFile(path.join(p.root, ...f.relPath.split('/'))).then(
        (x) => x.etag,
        () => null,
      );
      if (etag && etags.has(etag)) {
        etags.delete(etag);
        counts.renamedFiles++;
        continue;
      }
    }
    counts.newFiles++;
    counts.newBytes += f.size;
  }
}
