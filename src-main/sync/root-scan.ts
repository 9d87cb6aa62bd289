import { bookSection, section } from '../base/loop-watch';
import { SYNC_FILE_STATES, type SyncRepo, type WatchRootRecord } from '../store/sync-repo';
import type { WatchRootEvent } from './events';
import type { MissingHold } from './missing-hold';
import type { WatchRootOptions } from './options';
import type { PathFilter } from './path-filter';
import { problemEvent, scanProblemEvent } from './problems';
import { emptyCounts, type ScanCounts } from './reconcile';
import type { MissingFiles } from './missing-files';
import type { RootIndexer } from './root-indexer';
import { scanTree, type ScannedFile } from './scanner';
import { stabilityVerdict, type FileObservation } from './stability';

/** What a full scan of one root uses; WatchRoot gives its own parts. */
export interface FullScanDeps {
  root: WatchRootRecord;
  options: WatchRootOptions;
  filter: PathFilter;
  repo: SyncRepo;
  indexer: RootIndexer;
  /** Rows gone from the folder: finalized at once when nothing holds them (missing-files.ts). */
  missing: Pick<MissingFiles, 'finalize'>;
  missingHold: MissingHold;
  /** The clock of the stability rule; default Date.now. */
  now?: () => number;
  emit(e: WatchRootEvent): void;
  /** A followed link's folder was found: watch it too. */
  watchLinked(relDir: string, realPath: string): Promise<void>;
  /** Files not yet stable go to the stability window; returns how many files wait there now. */
  observeFresh(files: Array<{ relPath: string; obs: FileObservation }>): number;
  /**
   * Aborted when the root closes: the scan stops at its next slice (a folder of the walk, a
   * batch of the queue) and rejects with an AbortError. It writes nothing before the walk
   * ends, and queues whole batches after it: the next scan finds what it left.
   */
  signal?: AbortSignal;
}

/**
 * Reconciles a root with its index (start, rescan after a wake, return after being
 * unavailable): walks the folder, marks rows of files no longer there missing (except
 * under folders that could not be read), admits the files that are unchanged or already
 * stable, hands the others to the stability window, then finalizes missing rows or holds
 * them (missing-hold.ts). Emits scan-started, problems and scan-finished; resolves with the counts.
 */
export async function fullScan(d: FullScanDeps): Promise<ScanCounts> {
  const started = Date.now();
  const rootId = d.root.id;
  d.emit({ type: 'scan-started', rootId });
  const index = section('scan.loadIndex', () => d.repo.loadIndexSummary(rootId));
  const uploadedState = SYNC_FILE_STATES.indexOf('uploaded');
  const skippedState = SYNC_FILE_STATES.indexOf('skipped');
  const counts = emptyCounts();
  // Whether the walk found each row's file (by slot), and how many files it found.
  const seen = new Uint8Array(index.size.length);
  let found = 0;
  const ready: ScannedFile[] = [];
  const fresh: Array<{ relPath: string; obs: FileObservation }> = [];
  const unreadable: string[] = [];
  for await (const dir of scanTree({
    root: d.root.path,
    filter: d.filter,
    symlinks: d.options.symlinks,
    signal: d.signal,
  })) {
    counts.ignoredFiles += dir.ignoredFiles;
    counts.ignoredBytes += dir.ignoredBytes;
    for (const p of dir.problems) {
      counts.problems.push(p);
      if (p.code === 'permission-denied' || p.code === 'unreadable') unreadable.push(p.relPath);
      d.emit(scanProblemEvent(rootId, p));
    }
    if (dir.linkedDir) await d.watchLinked(dir.linkedDir.relDir, dir.linkedDir.realPath);
    const now = (d.now ?? Date.now)();
    section('scan.dir', () => {
      for (const f of dir.files) {
        found++;
        const slot = index.slots.get(f.relPath);
        if (slot !== undefined) seen[slot] = 1;
        const same = slot !== undefined && index.size[slot] === f.size && index.mtimeMs[slot] === f.mtimeMs;
        if (same && (index.state[slot] === uploadedState || index.state[slot] === skippedState)) {
          // Unchanged and settled: what admit() would count, with nothing to write. Kept out
          // of `ready`, so a rescan of a large folder holds no list of its files.
          counts.unchangedFiles++;
          counts.unchangedBytes += f.size;
        } else if (same || stabilityVerdict(undefined, f, now, d.options.stabilityMs).ready) ready.push(f);
        else fresh.push({ relPath: f.relPath, obs: f });
      }
    });
  }
  d.signal?.throwIfAborted();
  const t0 = performance.now();
  const under = (p: string) => unreadable.some((u) => p === u || p.startsWith(`${u}/`));
  const missingState = SYNC_FILE_STATES.indexOf('missing');
  const gone: string[] = [];
  for (const [relPath, slot] of index.slots)
    if (!seen[slot] && index.state[slot] !== missingState && !under(relPath)) gone.push(relPath);
  const now = Date.now();
  d.repo.markMissing(rootId, gone, now);
  counts.missingFiles = gone.length;
  bookSection('scan.gone', performance.now() - t0);
  // admit() reads the whole row of each file that needs work, in its slices; a file the
  // index did not have at the start has none (nothing else writes this root's rows meanwhile
  // but the queue's outcomes, which only update rows).
  await d.indexer.admit(ready, {
    rowOf: (p) => (index.slots.has(p) ? d.repo.getFile(rootId, p) : undefined),
    counts,
  });
  d.signal?.throwIfAborted(); // nothing is finalized or observed after a stop: the next scan does it
  // Files ready at once here queue their admit (serial) before any later finalize.
  counts.waitingFiles = section('scan.observeFresh', () => d.observeFresh(fresh));
  const emptied = found === 0 && gone.length > 0 && d.options.localDelete === 'delete-remote';
  if (emptied) {
    d.missingHold.emptyRoot(now);
    d.emit(problemEvent(rootId, '', 'root-empty', { path: d.root.path, count: gone.length }));
  } else if (fresh.length > 0) {
    // A file renamed while the app was closed (or asleep) and touched since is still
    // waiting: the rows gone in this scan stay claimable until the waiting files settle.
    d.missingHold.afterScan(
      now,
      fresh.map((f) => f.relPath),
    );
  } else {
    d.missingHold.afterScan(now, []);
    await d.missing.finalize(now);
  }
  d.repo.updateRoot(rootId, { lastScanAt: now });
  d.emit({ type: 'scan-finished', rootId, counts, durationMs: Date.now() - started });
  return counts;
}
