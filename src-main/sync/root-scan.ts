import { bookSection, section } from '../base/loop-watch';
import type { SyncRepo, WatchRootRecord } from '../store/sync-repo';
import type { WatchRootEvent } from './events';
import type { MissingHold } from './missing-hold';
import type { WatchRootOptions } from './options';
import type { PathFilter } from './path-filter';
import { problemEvent, scanProblemEvent } from './problems';
import { emptyCounts, sameContent, type ScanCounts } from './reconcile';
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
  const index = section('scan.loadIndex', () => d.repo.loadIndex(rootId));
  const counts = emptyCounts();
  const seen = new Set<string>();
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
        seen.add(f.relPath);
        const row = index.get(f.relPath);
        if ((row && sameContent(row, f)) || stabilityVerdict(undefined, f, now, d.options.stabilityMs).ready)
          ready.push(f);
        else fresh.push({ relPath: f.relPath, obs: f });
      }
    });
  }
  d.signal?.throwIfAborted();
  const t0 = performance.now();
  const under = (p: string) => unreadable.some((u) => p === u || p.startsWith(`${u}/`));
  const gone = [...index.values()].filter((r) => !seen.has(r.relPath) && r.state !== 'missing' && !under(r.relPath));
  const now = Date.now();
  d.repo.putFiles(
    rootId,
    gone.map((r) => ({ ...r, state: 'missing' as const, missingSince: now })),
  );
  for (const r of gone) index.set(r.relPath, { ...r, state: 'missing', missingSince: now });
  counts.missingFiles = gone.length;
  bookSection('scan.gone', performance.now() - t0);
  await d.indexer.admit(ready, index, counts);
  d.signal?.throwIfAborted(); // nothing is finalized or observed after a stop: the next scan does it
  // Files ready at once here queue their admit (serial) before any later finalize.
  counts.waitingFiles = section('scan.observeFresh', () => d.observeFresh(fresh));
  const emptied = seen.size === 0 && gone.length > 0 && d.options.localDelete === 'delete-remote';
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
