import { stat } from 'node:fs/promises';
import { runDetached } from '../base/unexpected-error';
import type { WatchRootState } from './events';
import type { RootReason } from './problems';
import { RootUnavailableError, rootUnavailable } from './scanner';

export interface RootPresenceDeps {
  rootPath: string;
  /** How often the folder's presence is checked; default 1000 ms. */
  everyMs?: number;
  state(): WatchRootState;
  /** The folder went away (or is not a folder any more) while watched: why, by its catalog code. */
  lost(reason: RootReason): Promise<void>;
  /** The folder is back while the root was unavailable. */
  back(): Promise<unknown>;
  /** Every period while the root watches (missing files settle then). */
  tick(): void;
}

/**
 * Whether a watched folder is still there: checked every period and after a watcher error;
 * a folder gone while watched makes the root unavailable, and its return restarts it.
 */
export class RootPresence {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly d: RootPresenceDeps) {}

  /** Starts the periodic check (once; it runs until `stop()`). */
  arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      runDetached(this.check(), 'watch root: presence check');
      if (this.d.state() === 'watching') this.d.tick();
    }, this.d.everyMs ?? 1000);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async check(): Promise<void> {
    const state = this.d.state();
    if (this.checking || state === 'closed' || state === 'paused' || state === 'starting') return;
    this.checking = true;
    try {
      let problem: RootUnavailableError | null = null;
      try {
        const s = await stat(this.d.rootPath);
        if (!s.isDirectory()) problem = new RootUnavailableError('root-not-a-folder', { path: this.d.rootPath });
      } catch (e) {
        problem = rootUnavailable(this.d.rootPath, e);
      }
      if (problem && this.d.state() === 'watching') await this.d.lost(problem);
      else if (!problem && this.d.state() === 'unavailable') await this.d.back();
    } finally {
      this.checking = false;
    }
  }
}
