import watcher from '@parcel/watcher';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runDetached } from '../base/unexpected-error';
import { EventBatcher, type FolderWatcher, type FolderWatcherOptions } from './watcher';

/**
 * @parcel/watcher backend: native, one inotify watch per folder on Linux (FSEvents on
 * macOS, ReadDirectoryChangesW on Windows).
 *
 * Known gap worked around here (parcel-bundler/watcher#97): on Linux, folders created
 * faster than parcel adds its watch (`mkdir -p a/b/c`, a copied tree) are never watched, so
 * later files in them are missed. On every folder `create`, this backend lists the new
 * folder and subscribes each subfolder found as a helper subscription (parcel crawls it and
 * watches its whole subtree; watches are shared per folder, so no handle is doubled).
 * Helpers are dropped when their folder is deleted. Events may then arrive twice; events
 * are hints and the consumer stats the path, so a duplicate costs nothing.
 *
 * A helper watches only once its subscription resolves: a file written into its folder
 * before that (`mkdir -p a/b && cp f a/b`) is reported by no watch, and the consumer's walk
 * of `a` may have listed `b` before the file was there. So a helper, once it watches, reports
 * its folder as created: the consumer walks it again and finds what came before.
 */
export async function startParcelWatcher(opts: FolderWatcherOptions): Promise<FolderWatcher> {
  const batcher = new EventBatcher(opts.onEvents);
  const helpers = new Map<string, watcher.AsyncSubscription>();
  const ignore = [...(opts.ignoreGlobs ?? [])];
  let closed = false;

  const addHelpers = async (createdDir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(createdDir, { withFileTypes: true });
    } catch {
      return; // a file, or gone again
    }
    for (const d of entries) {
      if (!d.isDirectory() || closed) continue;
      const sub = path.join(createdDir, d.name);
      if (helpers.has(sub) || opts.isIgnoredDir(sub)) continue;
      try {
        helpers.set(sub, await watcher.subscribe(sub, onParcel, { ignore }));
        if (closed) await helpers.get(sub)?.unsubscribe();
        else batcher.push({ type: 'create', absPath: sub });
      } catch {
        // removed between the listing and the subscription
      }
    }
  };

  const dropHelpers = async (deleted: string): Promise<void> => {
    for (const [p, sub] of helpers) {
      if (p === deleted || p.startsWith(deleted + path.sep)) {
        helpers.delete(p);
        await sub.unsubscribe().catch(() => {});
      }
    }
  };

  function onParcel(err: Error | null, events: watcher.Event[]): void {
    if (closed) return;
    if (err) {
      opts.onError(err);
      return;
    }
    for (const e of events) {
      if (opts.isIgnoredDir(path.dirname(e.path))) continue;
      batcher.push({ type: e.type, absPath: e.path });
      if (e.type === 'create') runDetached(addHelpers(e.path), 'parcel watcher: watch a new folder');
      else if (e.type === 'delete' && helpers.size)
        runDetached(dropHelpers(e.path), 'parcel watcher: unwatch a deleted folder');
    }
  }

  const main = await watcher.subscribe(opts.dir, onParcel, { ignore });
  return {
    backend: 'parcel',
    async close() {
      closed = true;
      batcher.stop();
      await main.unsubscribe();
      for (const sub of helpers.values()) await sub.unsubscribe().catch(() => {});
      helpers.clear();
    },
  };
}
