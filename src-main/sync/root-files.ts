import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SyncRepo } from '../store/sync-repo';
import type { WatchRootEvent } from './events';
import type { WatchRootOptions } from './options';
import type { PathFilter } from './path-filter';
import { scanProblemEvent } from './problems';
import { sameContent } from './reconcile';
import { scanTree } from './scanner';
import type { FileObservation } from './stability';
import type { WatchEvent } from './watcher';

export interface RootFilesDeps {
  rootId: number;
  rootPath: string;
  options: Pick<WatchRootOptions, 'symlinks'>;
  filter: PathFilter;
  repo: Pick<SyncRepo, 'getFile'>;
  /** Whether a folder is reached by the root's own watch (not only through a followed link). */
  reachedDirectly(relDir: string): Promise<boolean>;
  /** Watches the folder a followed link in a new folder leads to. */
  watchLinked(relDir: string, realPath: string): Promise<void>;
  /** A path is gone: the stability window forgets it (and what was under it) at once. */
  gone(relPath: string): void;
  emit(e: WatchRootEvent): void;
}

/** What a batch of watcher events comes to, once each path was looked at. */
export interface RootChanges {
  /** Files to put through the stability window (new, or changed since their row). */
  observe: Array<{ relPath: string; obs: FileObservation }>;
  /** Paths gone from the folder (files, or folders with everything under them). */
  missing: string[];
}

/**
 * The watcher adapter of one root: watcher events are hints, so each path of a batch is
 * stat'ed once and the result decides (a file to observe, a path gone, a new folder walked
 * for its files). Also how the root looks at one file (`observeFile`).
 */
export class RootFiles {
  constructor(private readonly d: RootFilesDeps) {}

  absOf(rel: string): string {
    return path.join(this.d.rootPath, ...rel.split('/'));
  }

  /** A file's size and mtime now, or null when it is gone or not a file. */
  async observeFile(rel: string): Promise<FileObservation | null> {
    const s = await this.statOf(this.absOf(rel));
    return s?.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  }

  /** Looks at each path of the batch once (the last event of a path wins) and says what changed. */
  async read(batch: ReadonlyArray<{ type: WatchEvent['type']; relPath: string }>): Promise<RootChanges> {
    const { filter, repo, rootId } = this.d;
    const last = new Map<string, WatchEvent['type']>();
    for (const e of batch) last.set(e.relPath, e.type);
    const observe: RootChanges['observe'] = [];
    const missing: string[] = [];
    for (const rel of last.keys()) {
      if (rel === '' || rel.startsWith('..')) continue;
      const s = await this.statOf(this.absOf(rel));
      if (!s) {
        this.d.gone(rel);
        missing.push(rel);
      } else if (s.isDirectory()) {
        if (filter.dirPathReason(rel) || !(await this.d.reachedDirectly(rel))) continue;
        for await (const dir of scanTree({
          root: this.d.rootPath,
          filter,
          symlinks: this.d.options.symlinks,
          startRelDir: rel,
        })) {
          if (dir.linkedDir) await this.d.watchLinked(dir.linkedDir.relDir, dir.linkedDir.realPath);
          for (const p of dir.problems) this.d.emit(scanProblemEvent(rootId, p));
          for (const f of dir.files) observe.push({ relPath: f.relPath, obs: f });
        }
      } else if (s.isFile() && !filter.pathReason(rel)) {
        const row = repo.getFile(rootId, rel);
        if (row && row.state !== 'missing' && row.state !== 'queued' && sameContent(row, s)) continue; // nothing new (e.g. atime)
        observe.push({ relPath: rel, obs: { size: s.size, mtimeMs: s.mtimeMs } });
      }
    }
    return { observe, missing };
  }

  private async statOf(abs: string): Promise<Stats | null> {
    try {
      return this.d.options.symlinks === 'follow' ? await stat(abs) : await lstat(abs);
    } catch {
      return null;
    }
  }
}
