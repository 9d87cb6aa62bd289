/**
 * The small interface sync uses to hear about changes under a folder, with two backends:
 * `chokidar` (the user's choice; on Node 20 it holds one OS watch per file) and `parcel`
 * (@parcel/watcher; one inotify watch per folder on Linux). Events are hints: the consumer
 * stats the path and decides. Neither backend follows symbolic links; the watch root adds a
 * watcher for each followed linked folder itself, so both behave the same.
 */
import { WATCHER_BACKENDS, type WatcherBackend } from '../shared/models';

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  /** Absolute path under the watched folder. */
  absPath: string;
}

export interface FolderWatcherOptions {
  /** Absolute, resolved folder to watch, recursively. */
  dir: string;
  /** Folders not to watch at all (absolute path). Events under them may still arrive; consumers filter. */
  isIgnoredDir(absPath: string): boolean;
  /** Globs (relative to dir) the parcel backend passes to the OS layer, e.g. '**\/.git'. */
  ignoreGlobs?: readonly string[];
  /** Events in arrival order, batched (a burst of 10,000 files is a few calls, not 10,000). */
  onEvents(events: WatchEvent[]): void;
  onError(err: Error): void;
}

/** A running watcher. `close()` releases every OS handle; no event is delivered after it resolves. */
export interface FolderWatcher {
  readonly backend: WatcherBackend;
  close(): Promise<void>;
}

// Named in shared/models.ts (the CLI's --backend checks with it); the layers below import them from here.
export { WATCHER_BACKENDS, type WatcherBackend };

/**
 * The backend used when nobody chooses: parcel, which the benchmark (test/bench/sync.ts)
 * chose: one OS watch per folder instead of one per file, and a fraction of chokidar's RSS
 * on a 100,000-file tree.
 */
export const DEFAULT_WATCHER_BACKEND: WatcherBackend = 'parcel';

/** Starts a watcher; resolves once it is watching (changes after that are reported). */
export async function startFolderWatcher(backend: WatcherBackend, opts: FolderWatcherOptions): Promise<FolderWatcher> {
  if (backend === 'chokidar') return (await import('./watcher-chokidar')).startChokidarWatcher(opts);
  return (await import('./watcher-parcel')).startParcelWatcher(opts);
}

/**
 * Collects events and hands them on in one batch per `delayMs`, so callers see bursts as a
 * few calls. `stop()` drops what is pending.
 */
export class EventBatcher {
  private buf: WatchEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly deliver: (events: WatchEvent[]) => void,
    private readonly delayMs = 20,
  ) {}

  push(e: WatchEvent): void {
    if (this.stopped) return;
    this.buf.push(e);
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  private flush(): void {
    this.timer = undefined;
    const out = this.buf;
    this.buf = [];
    if (!this.stopped && out.length) this.deliver(out);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.buf = [];
  }
}
