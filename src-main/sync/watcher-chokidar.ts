import { watch } from 'chokidar';
import { EventBatcher, type FolderWatcher, type FolderWatcherOptions, type WatchEventType } from './watcher';

const EVENT_TYPES: Record<string, WatchEventType | undefined> = {
  add: 'create',
  addDir: 'create',
  change: 'update',
  unlink: 'delete',
  unlinkDir: 'delete',
};

/** chokidar backend: initial events off (the watch root scans itself), links not followed. */
export async function startChokidarWatcher(opts: FolderWatcherOptions): Promise<FolderWatcher> {
  const batcher = new EventBatcher(opts.onEvents);
  const w = watch(opts.dir, {
    ignoreInitial: true,
    followSymlinks: false,
    persistent: true,
    alwaysStat: false,
    atomic: false,
    ignored: (p, stats) => p !== opts.dir && stats?.isDirectory() === true && opts.isIgnoredDir(p),
  });
  w.on('all', (event, p) => {
    const type = EVENT_TYPES[event];
    if (type) batcher.push({ type, absPath: p });
  });
  w.on('error', (e) => opts.onError(e instanceof Error ? e : new Error(String(e))));
  await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return {
    backend: 'chokidar',
    async close() {
      batcher.stop();
      await w.close();
    },
  };
}
