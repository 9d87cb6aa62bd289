import { FSWatcher } from 'chokidar';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runDetached } from '../base/unexpected-error';
import { EventBatcher, type FolderWatcher, type FolderWatcherOptions, type WatchEventType } from './watcher';

const EVENT_TYPES: Record<string, WatchEventType | undefined> = {
  add: 'create',
  addDir: 'create',
  change: 'update',
  unlink: 'delete',
  unlinkDir: 'delete',
};

/** chokidar's watcher, saying when the watch of a path has been attached (`_addPathCloser` runs right after). */
class AttachReportingWatcher extends FSWatcher {
  onAttached: (p: string) => void = () => undefined;

  override _addPathCloser(p: string, closer: () => void): void {
    super._addPathCloser(p, closer);
    this.onAttached(p);
  }
}

/**
 * chokidar backend: initial events off (the watch root scans itself), links not followed.
 *
 * Known gap worked around here (paulmillr/chokidar#1112, #1471; still so in 5.0.0): chokidar
 * lists a new folder and only then attaches its watch, so an entry made in between is never
 * reported, and a folder made then is never watched, nor anything later put in it. The gap
 * lasts as long as chokidar takes to go through the folder's entries: `mkdir -p a/b` put b
 * in a's gap now and then, and a folder of 2,000 files moved in kept its gap open past its
 * create event. So once the watch of a folder chokidar reported as created is attached,
 * this backend lists the folder again and hands each entry chokidar does not know back to it
 * as found by a re-read (`add(path, undefined, true)`, as chokidar does itself): chokidar
 * reports it and watches it, and a folder so added is listed again once watched. An entry
 * chokidar was still taking in itself may be taken in twice (one OS watch; one event).
 * Folders there at the start are not listed again: a folder made in one of their gaps, before
 * `ready`, has its files found by the watch root's scan but stays unwatched until the next.
 */
export async function startChokidarWatcher(opts: FolderWatcherOptions): Promise<FolderWatcher> {
  const batcher = new EventBatcher(opts.onEvents);
  const w = new AttachReportingWatcher({
    ignoreInitial: true,
    followSymlinks: false,
    persistent: true,
    alwaysStat: false,
    atomic: false,
    ignored: (p, stats) => p !== opts.dir && stats?.isDirectory() === true && opts.isIgnoredDir(p),
  });
  /** Folders reported as created whose watch is not attached yet. */
  const newDirs = new Set<string>();
  let closed = false;

  const listAgain = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return; // gone again
    }
    // add() reopens a closed watcher; chokidar's own entry for the folder says what it knows.
    const known = w._watched.get(dir);
    if (closed || !known) return;
    const missed = names.filter((n) => !known.has(n)).map((n) => path.join(dir, n));
    if (missed.length) w.add(missed, undefined, true);
  };
  w.onAttached = (p) => {
    if (newDirs.delete(p)) runDetached(listAgain(p), 'chokidar watcher: list a new folder again');
  };

  w.on('all', (event, p) => {
    if (event === 'addDir') newDirs.add(p);
    else if (event === 'unlinkDir') newDirs.delete(p);
    const type = EVENT_TYPES[event];
    if (type) batcher.push({ type, absPath: p });
  });
  w.on('error', (e) => opts.onError(e instanceof Error ? e : new Error(String(e))));
  const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
  w.add(opts.dir);
  await ready;
  return {
    backend: 'chokidar',
    async close() {
      closed = true;
      newDirs.clear();
      batcher.stop();
      await w.close();
    },
  };
}
