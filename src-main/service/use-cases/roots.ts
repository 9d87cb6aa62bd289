import path from 'node:path';
import type { IgnorePreview, RootInput, RootPlan, WatchRootView } from '../../shared/contract';
import type { WatchRootOptionsInput } from '../../shared/watch-views';
import type { CoreProblem } from '../../shared/events';
import type { SyncRepo } from '../../store/sync-repo';
import type { WatchRootEvent } from '../../sync/events';
import { normalizeWatchOptions } from '../../sync/options';
import { PathFilter } from '../../sync/path-filter';
import { scanTree } from '../../sync/scanner';
import type { WatchManager } from '../../sync/watch-manager';
import { notFound } from '../api/errors';
import { rootView, type RootScanInfo } from './views';
import { refuseEmulatorDataDir } from '../emulator-guard';

/** Files the ignore preview looks at, at most (a preview, not an index). */
const PREVIEW_MAX_FILES = 100_000;

/** One root, or every stored root. */
export type RootSelection = { id: number } | { all: true };

export interface RootsDeps {
  /** Watched folders and their file index. */
  repo: SyncRepo;
  /** The live roots (sync/watch-manager.ts). */
  watch: WatchManager;
  /** The app's data folder: a folder holding the embedded emulator's data is refused. */
  dataDir: string;
  problem: (p: CoreProblem) => void;
}

/**
 * The watched folders use case (verbs `roots.*`, and the wake detector's rescan): plan, add
 * (this is where adding a watched folder happens: the emulator-data guard, then
 * `WatchManager.addRoot`, which checks the folder against the others and starts it),
 * update, pause, resume, remove, rescan, the ignore preview, and each root's view with what
 * its scans did (kept from the watch events; `dispose()` stops listening).
 */
export class RootsUseCase {
  private readonly scans = new Map<number, RootScanInfo>();
  private readonly unsubscribe: () => void;

  constructor(private readonly d: RootsDeps) {
    this.unsubscribe = d.watch.on((e) => this.noteScan(e));
  }

  dispose(): void {
    this.unsubscribe();
  }

  /** A root as screens see it (undefined when gone). */
  view(id: number): WatchRootView | undefined {
    const rec = this.d.repo.getRoot(id);
    return rec && rootView(rec, this.d.watch.get(id), this.d.repo, this.scans.get(id));
  }

  list(): WatchRootView[] {
    return this.d.repo.listRoots().map((r) => rootView(r, this.d.watch.get(r.id), this.d.repo, this.scans.get(r.id)));
  }

  /** What adding the folder would upload (a dry run: writes nothing). */
  async plan(input: RootInput): Promise<RootPlan> {
    await refuseEmulatorDataDir(input.path, this.d.dataDir);
    const { plan } = await this.d.watch.plan({ folder: input.path, prefix: input.prefix, options: input.options });
    const { filesToUpload, bytesToUpload, estimatedSeconds, assumedBytesPerSecond, speedSource, ...counts } = plan;
    return { ...counts, filesToUpload, bytesToUpload, estimatedSeconds, assumedBytesPerSecond, speedSource };
  }

  /** Adds a watched folder uploading to `accountId` and starts it (its first scan done). */
  async add(input: RootInput, accountId: number): Promise<WatchRootView> {
    await refuseEmulatorDataDir(input.path, this.d.dataDir);
    const root = await this.d.watch.addRoot({
      folder: input.path,
      accountId,
      bucket: input.bucket,
      prefix: input.prefix,
      options: input.options,
    });
    return this.mustView(root.id);
  }

  /** A new prefix or options for a root: it restarts with them. */
  async update(
    id: number,
    prefix: string | undefined,
    options: WatchRootOptionsInput | undefined,
  ): Promise<WatchRootView> {
    const rec = this.d.repo.getRoot(id);
    if (!rec) throw notFound('Watched folder', id);
    const root = await this.d.watch.addRoot({
      folder: rec.path,
      accountId: rec.accountId,
      bucket: rec.bucket,
      prefix: prefix ?? rec.prefix,
      options: { ...rec.options, ...options },
    });
    return this.mustView(root.id);
  }

  /** Pauses the roots (kept across restarts); returns their ids. */
  async pause(sel: RootSelection): Promise<number[]> {
    const list = this.ids(sel);
    for (const id of list) await this.d.watch.pauseRoot(id);
    return list;
  }

  /** Resumes the roots (each reconciles); returns their ids. */
  async resume(sel: RootSelection): Promise<number[]> {
    const list = this.ids(sel);
    for (const id of list) await this.d.watch.resumeRoot(id);
    return list;
  }

  async remove(id: number): Promise<void> {
    this.mustView(id);
    await this.d.watch.removeRoot(id);
    this.scans.delete(id);
  }

  /** Reconciles the watching roots of the selection with their folders; returns how many. */
  async rescan(sel: RootSelection): Promise<number> {
    let count = 0;
    for (const id of this.ids(sel)) {
      const r = this.d.watch.get(id);
      if (r?.state === 'watching') {
        await r.rescan();
        count++;
      }
    }
    return count;
  }

  /** Reconciles every watching root (after the machine wakes). Never rejects: a failure is a problem. */
  async rescanAll(): Promise<void> {
    try {
      await this.d.watch.rescanAll();
    } catch (e) {
      this.d.problem({
        code: 'rescan-failed',
        message: `Rescanning the watched folders after a wake failed: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
  }

  /** Which files of a folder the options leave out, and why (the rules editor's preview). Reads only. */
  async previewIgnores(folder: string, input: WatchRootOptionsInput, limit: number): Promise<IgnorePreview> {
    const o = normalizeWatchOptions(input);
    const rules = new PathFilter(o);
    const everything = new PathFilter({ ignore: [], useDefaultIgnores: false, includeOnly: [], includeHidden: true });
    const out: IgnorePreview = { ignored: [], ignoredCount: 0, includedCount: 0 };
    let seen = 0;
    const sorted = (): IgnorePreview => {
      // readdir order differs between file systems; a person reads the preview as a sorted list
      out.ignored.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
      return out;
    };
    for await (const dir of scanTree({ root: path.resolve(folder), filter: everything, symlinks: o.symlinks })) {
      for (const f of dir.files) {
        if (++seen > PREVIEW_MAX_FILES) return sorted();
        const reason = rules.pathReason(f.relPath);
        if (!reason) {
          out.includedCount++;
          continue;
        }
        out.ignoredCount++;
        if (out.ignored.length < limit) out.ignored.push({ relPath: f.relPath, reason });
      }
    }
    return sorted();
  }

  private mustView(id: number): WatchRootView {
    const v = this.view(id);
    if (!v) throw notFound('Watched folder', id);
    return v;
  }

  private ids(sel: RootSelection): number[] {
    return 'all' in sel ? this.d.repo.listRoots().map((r) => r.id) : [this.mustView(sel.id).id];
  }

  private noteScan(e: WatchRootEvent): void {
    const info = this.scans.get(e.rootId) ?? { running: null, ignoredFiles: 0 };
    if (e.type === 'scan-started') info.running = { files: 0 };
    else if (e.type === 'queued' && info.running) info.running.files += e.files.length;
    else if (e.type === 'scan-finished') {
      info.running = null;
      info.ignoredFiles = e.counts.ignoredFiles;
    }
    this.scans.set(e.rootId, info);
  }
}
