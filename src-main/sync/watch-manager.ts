import { Emitter } from '../common/emitter';
import type { TransferQueue } from '../engine/api';
import type { SyncRepo } from '../store/sync-repo';
import type { TransferState } from '../shared/models';
import type { WatchRootEvent } from './events';
import { normalizeWatchOptions } from './options';
import { chooseEstimateSpeed, planRoot, type SyncPlan } from './plan';
import type { RemoteOps } from './remote-ops';
import { checkNewRoot } from './root-guard';
import { WatchRoot, type QueueControl } from './watch-root';
import type { WatcherBackend } from './watcher';

export interface WatchManagerDeps {
  repo: SyncRepo;
  queue: TransferQueue;
  /** Pauses and resumes a root's transfers (the app service passes its reason-keeping control). */
  control?: QueueControl;
  remote?: RemoteOps;
  /** The app's data folder: refused as a root, and left out of a root that contains it. */
  dataDir?: string;
  backend?: WatcherBackend;
}

export interface AddRootInput {
  folder: string;
  accountId: number;
  bucket: string;
  prefix?: string;
  options?: Record<string, unknown>;
}

/**
 * All watch roots of the app: add (checked, planned), remove, pause one or all, rescan
 * after a wake. Events of every root go to `on` listeners. `close()` closes every root.
 * The upload schedule is not here: it applies to every transfer, so the app service owns
 * it (service/upload-schedule.ts) and pauses through the same control.
 */
export class WatchManager {
  private readonly roots = new Map<number, WatchRoot>();
  private readonly events = new Emitter<WatchRootEvent>('watch manager listener');

  /**
   * Adding, removing, starting and closing roots run one at a time, in call order: two
   * overlapping calls for one folder (a UI clicking twice, a door fuzzed) must never leave a
   * second root running that nothing owns, whose watcher would keep the process alive.
   */
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** close() was called: roots opened by the adds queued before it are closed before they scan. */
  private stopping = false;

  constructor(private readonly d: WatchManagerDeps) {}

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(
      () => work(),
      () => work(),
    );
    this.chain = run.catch(() => undefined);
    return run;
  }

  on(listener: (e: WatchRootEvent) => void): () => void {
    return this.events.add(listener);
  }

  list(): WatchRoot[] {
    return [...this.roots.values()];
  }

  get(id: number): WatchRoot | undefined {
    return this.roots.get(id);
  }

  private async open(id: number, excludedDirs: readonly string[]): Promise<WatchRoot> {
    if (this.closed) throw new Error('the folder watcher is closing; the folder was not started');
    const record = this.d.repo.getRoot(id);
    if (!record) throw new Error(`the watched folder ${id} was removed meanwhile`);
    const root = new WatchRoot({
      record,
      options: normalizeWatchOptions(record.options),
      excludedDirs,
      repo: this.d.repo,
      queue: this.d.queue,
      control: this.d.control,
      remote: this.d.remote,
      backend: this.d.backend,
    });
    root.on((e) => this.events.emit(e));
    this.roots.set(id, root);
    if (this.stopping) {
      // Stored, not started: the next start scans it.
      await root.close();
    } else if (record.paused) {
      // Stays paused across restarts until the user resumes it.
      await root.pause();
    } else {
      await root.start();
    }
    return root;
  }

  /** Starts every stored root (paused ones stay paused). */
  startAll(): Promise<void> {
    return this.serialize(() => this.doStartAll());
  }

  private async doStartAll(): Promise<void> {
    for (const r of this.d.repo.listRoots()) {
      if (this.roots.has(r.id)) continue;
      const { excludedDirs } = await checkNewRoot(r.path, [], this.d.dataDir).catch(() => ({
        excludedDirs: [] as string[],
      }));
      await this.open(r.id, excludedDirs);
    }
  }

  /**
   * The dry run for a folder before it is added: checks it (RootRefusedError with the
   * reason) and says what would be uploaded. Writes nothing. The estimate assumes
   * `bytesPerSecond`, else this database's measured recent throughput, else the default.
   */
  async plan(
    input: Omit<AddRootInput, 'accountId' | 'bucket'>,
    bytesPerSecond?: number,
  ): Promise<{ root: string; plan: SyncPlan; isNew: boolean }> {
    const options = normalizeWatchOptions(input.options ?? {});
    const existing = this.d.repo.listRoots();
    const { root, excludedDirs } = await checkNewRoot(
      input.folder,
      existing.map((r) => r.path),
      this.d.dataDir,
    );
    const known = existing.find((r) => r.path === root);
    const speed =
      bytesPerSecond === undefined
        ? chooseEstimateSpeed(this.d.repo.recentThroughput())
        : { bytesPerSecond, source: 'measured' as const };
    const plan = await planRoot({
      root,
      prefix: input.prefix ?? known?.prefix ?? '',
      options,
      excludedDirs,
      index: known ? this.d.repo.loadIndex(known.id) : undefined,
      transferState: (id) => this.d.queue.get(id)?.state as TransferState | undefined,
      bytesPerSecond: speed.bytesPerSecond,
      speedSource: speed.source,
      remoteAvailable: this.d.remote !== undefined,
    });
    return { root, plan, isNew: known === undefined };
  }

  /** Adds (or reopens, for the same folder) a root and starts it; resolves after its first scan. */
  addRoot(input: AddRootInput): Promise<WatchRoot> {
    return this.serialize(() => this.doAddRoot(input));
  }

  private async doAddRoot(input: AddRootInput): Promise<WatchRoot> {
    const options = normalizeWatchOptions(input.options ?? {});
    const existing = this.d.repo.listRoots();
    const { root, excludedDirs } = await checkNewRoot(
      input.folder,
      existing.map((r) => r.path),
      this.d.dataDir,
    );
    const known = existing.find((r) => r.path === root);
    const id = known
      ? this.d.repo.updateRoot(known.id, {
          accountId: input.accountId,
          bucket: input.bucket,
          prefix: input.prefix ?? '',
          options: { ...options },
        }).id
      : this.d.repo.addRoot({
          path: root,
          accountId: input.accountId,
          bucket: input.bucket,
          prefix: input.prefix ?? '',
          options: { ...options },
        }).id;
    await this.roots.get(id)?.close();
    return this.open(id, excludedDirs);
  }

  /** Stops watching and forgets the root's index; the objects it uploaded stay. */
  removeRoot(id: number): Promise<void> {
    return this.serialize(async () => {
      await this.roots.get(id)?.close();
      this.roots.delete(id);
      this.d.repo.removeRoot(id);
    });
  }

  async pauseRoot(id: number): Promise<void> {
    await this.roots.get(id)?.pause();
  }

  async resumeRoot(id: number): Promise<void> {
    await this.roots.get(id)?.resume();
  }

  async pauseAll(): Promise<void> {
    for (const r of this.roots.values()) if (r.state !== 'paused') await r.pause();
  }

  async resumeAll(): Promise<void> {
    for (const r of this.roots.values()) await r.resume();
  }

  /** After the machine wakes: reconcile every watching root. */
  async rescanAll(): Promise<void> {
    for (const r of this.roots.values()) if (r.state === 'watching') await r.rescan();
  }

  /**
   * Closes every root, after the adds and removes already asked for; later ones are refused.
   * The roots open now are told at once (a first scan running, which an add or the start
   * waits for, stops at its next slice), so a quit never waits for a whole scan.
   */
  close(): Promise<void> {
    this.stopping = true;
    const stopping = [...this.roots.values()].map((r) => r.close());
    return this.serialize(async () => {
      this.closed = true;
      await Promise.allSettled(stopping);
      for (const r of this.roots.values()) await r.close();
      this.roots.clear();
      this.events.clear();
    });
  }
}
