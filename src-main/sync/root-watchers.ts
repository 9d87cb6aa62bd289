import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PathFilter } from './path-filter';
import { RootUnavailableError, rootUnavailable } from './scanner';
import {
  DEFAULT_WATCHER_BACKEND,
  startFolderWatcher,
  type FolderWatcher,
  type WatchEvent,
  type WatcherBackend,
} from './watcher';

export interface RootWatchersDeps {
  rootPath: string;
  includeHidden: boolean;
  /** Folders inside the root never watched (the app's data folder), '/' form. */
  excludedDirs?: readonly string[];
  filter: PathFilter;
  backend?: WatcherBackend;
  /** Starts one watch; default startFolderWatcher (a test wraps it to inject lost events). */
  start?: typeof startFolderWatcher;
  /** A batch of events, paths relative to the root in '/' form. */
  onEvents(events: Array<{ type: WatchEvent['type']; relPath: string }>): void;
  /** A watcher failed (the root may be gone). */
  onError(): void;
  /** A followed link's folder could not be watched: where, and why (the OS's words). */
  onWatchFailed(relDir: string, reason: string): void;
}

/**
 * The OS watches of one root: the root folder, and each folder a followed symlink leads
 * to (named by the link's path in the root). `closeAll()` releases every watch.
 */
export class RootWatchers {
  private watchers: FolderWatcher[] = [];
  private readonly linked = new Map<string, string>(); // relDir → realPath of followed links

  constructor(private readonly d: RootWatchersDeps) {}

  /** Watches the root; throws RootUnavailableError when it is missing or not a folder. */
  async watchRoot(): Promise<void> {
    const { rootPath } = this.d;
    try {
      const s = await stat(rootPath);
      if (!s.isDirectory()) throw new RootUnavailableError('root-not-a-folder', { path: rootPath });
    } catch (e) {
      throw e instanceof RootUnavailableError ? e : rootUnavailable(rootPath, e);
    }
    this.watchers.push(await this.startWatcher(rootPath, ''));
  }

  /** Watches the folder a followed link at `relDir` leads to (once per link). */
  async watchLinked(relDir: string, realPath: string): Promise<void> {
    if (this.linked.has(relDir)) return;
    this.linked.set(relDir, realPath);
    try {
      this.watchers.push(await this.startWatcher(realPath, relDir));
    } catch (e) {
      this.d.onWatchFailed(relDir, (e as Error).message);
    }
  }

  async closeAll(): Promise<void> {
    const ws = this.watchers;
    this.watchers = [];
    this.linked.clear();
    await Promise.all(ws.map((w) => w.close()));
  }

  /**
   * True when the folder's real path is where the root (or a followed link the scan
   * accepted) puts it; false when it is reached through a link that is not followed or
   * that loops back (then it is not scanned again).
   */
  async reachedDirectly(rel: string): Promise<boolean> {
    let best: [string, string] | undefined;
    for (const [linkRel, real] of this.linked) {
      if ((rel === linkRel || rel.startsWith(`${linkRel}/`)) && (!best || linkRel.length > best[0].length))
        best = [linkRel, real];
    }
    const base = best ? best[1] : this.d.rootPath;
    const rest = best ? rel.slice(best[0].length + 1) : rel;
    try {
      return (await realpath(this.absOf(rel))) === path.join(base, ...rest.split('/').filter(Boolean));
    } catch {
      return false;
    }
  }

  private absOf(rel: string): string {
    return path.join(this.d.rootPath, ...rel.split('/'));
  }

  private startWatcher(dir: string, relBase: string): Promise<FolderWatcher> {
    const toRel = (abs: string) => {
      const r = path.relative(dir, abs).split(path.sep).join('/');
      return relBase === '' ? r : r === '' ? relBase : `${relBase}/${r}`;
    };
    const globs = ['**/.git', ...(this.d.includeHidden ? [] : ['**/.*'])];
    return (this.d.start ?? startFolderWatcher)(this.d.backend ?? DEFAULT_WATCHER_BACKEND, {
      dir,
      isIgnoredDir: (abs) => abs !== dir && this.d.filter.dirPathReason(toRel(abs)) !== undefined,
      ignoreGlobs: relBase === '' ? [...globs, ...(this.d.excludedDirs ?? []).map((e) => this.absOf(e))] : globs,
      onEvents: (events) => this.d.onEvents(events.map((e) => ({ type: e.type, relPath: toRel(e.absPath) }))),
      onError: () => this.d.onError(),
    });
  }
}
