import { Emitter } from '../base/emitter';
import type { TransferControl, TransferQueue } from '../engine/api';
import type { EngineStore } from '../engine/ports';
import { RUNNING_STATES } from '../engine/snapshot';
import type { SyncRepo } from '../store/sync-repo';
import type { TransferState } from '../shared/models';
import type { WatchRootEvent } from './events';
import { normalizeWatchOptions } from './options';
import { chooseEstimateSpeed, planRoot, type SyncPlan } from './plan';
import type { RemoteOps } from './remote-ops';
import { checkNewRoot } from './root-guard';
import { ALWAYS_RUN, checkSchedule, scheduleAt, type Schedule, type ScheduleState } from './schedule';
import { WatchRoot, type QueueControl } from './watch-root';
import type { WatcherBackend } from './watcher';

/**
 * Uploading as the schedule sees it: the bandwidth limit, and which transfers are active
 * (queued or running) when a pause window starts. The schedule pauses and resumes those
 * one by one through `control`, so it never resumes what the user paused.
 */
export interface UploadThrottle {
  setBandwidthLimit(bytesPerSec: number | null): void;
  /** Ids of the transfers queued or running now. */
  activeTransferIds(): readonly number[];
}

/** The throttle of an UploadEngine over its store (the core and tests build it this way). */
export function engineThrottle(
  engine: Pick<TransferControl, 'setBandwidthLimit'>,
  store: Pick<EngineStore, 'listTransfers'>,
): UploadThrottle {
  return {
    setBandwidthLimit: (b) => engine.setBandwidthLimit(b),
    activeTransferIds: () => store.listTransfers(['queued', ...RUNNING_STATES]).map((r) => r.id),
  };
}

export interface WatchManagerDeps {
  repo: SyncRepo;
  queue: TransferQueue;
  control?: QueueControl;
  throttle?: UploadThrottle;
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
 * after a wake, and the upload schedule. Events of every root go to `on` listeners.
 * `close()` closes every root and the schedule timer.
 */
export class WatchManager {
  private readonly roots = new Map<number, WatchRoot>();
  private readonly events = new Emitter<WatchRootEvent>('watch manager listener');
  private schedule: Schedule = ALWAYS_RUN;
  private scheduleTimer: NodeJS.Timeout | undefined;
  private lastSchedule: ScheduleState | undefined;
  /** Transfers the schedule paused (and only those): resumed when the pause window ends. */
  private readonly heldBySchedule = new Set<number>();

  private readonly unsubscribeQueue: () => void;

  constructor(private readonly d: WatchManagerDeps) {
    // While the schedule pauses uploading, transfers queued meanwhile are held too.
    this.unsubscribeQueue = d.queue.onTransferChange((t) => {
      if (t.state === 'queued' && this.lastSchedule?.running === false && d.control?.pause(t.id))
        this.heldBySchedule.add(t.id);
    });
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
    const record = this.d.repo.getRoot(id)!;
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
    if (record.paused) {
      // Stays paused across restarts until the user resumes it.
      await root.pause();
    } else {
      await root.start();
    }
    return root;
  }

  /** Starts every stored root (paused ones stay paused). */
  async startAll(): Promise<void> {
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
  async addRoot(input: AddRootInput): Promise<WatchRoot> {
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
  async removeRoot(id: number): Promise<void> {
    await this.roots.get(id)?.close();
    this.roots.delete(id);
    this.d.repo.removeRoot(id);
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
   * Sets the upload schedule and applies it now and at each change (through the throttle:
   * pause/resume all transfers, bandwidth limit). Watching and queueing go on while
   * uploading is paused by the schedule. Throws ScheduleError for a bad schedule.
   */
  setSchedule(schedule: Schedule, now: () => Date = () => new Date()): ScheduleState {
    checkSchedule(schedule);
    this.schedule = schedule;
    return this.applySchedule(now);
  }

  private applySchedule(now: () => Date): ScheduleState {
    if (this.scheduleTimer) clearTimeout(this.scheduleTimer);
    const at = scheduleAt(this.schedule, now());
    const prev = this.lastSchedule;
    // Recorded first: the queue listener reads it while resumeAll re-queues transfers.
    this.lastSchedule = { running: at.running, bytesPerSecond: at.bytesPerSecond };
    const t = this.d.throttle;
    if (t) {
      if (prev?.bytesPerSecond !== at.bytesPerSecond) t.setBandwidthLimit(at.bytesPerSecond);
      if (!at.running && prev?.running !== false) this.holdActive(t);
    }
    if (at.running && prev?.running === false) this.releaseHeld();
    if (at.nextChangeAt) {
      const delayMs = Math.max(1000, Math.min(at.nextChangeAt.getTime() - now().getTime(), 2 ** 31 - 1));
      this.scheduleTimer = setTimeout(() => this.applySchedule(now), delayMs);
      this.scheduleTimer.unref?.();
    }
    return this.lastSchedule;
  }

  /** Pause window starts: pauses every active transfer and remembers which it paused. */
  private holdActive(t: UploadThrottle): void {
    for (const id of t.activeTransferIds()) if (this.d.control?.pause(id)) this.heldBySchedule.add(id);
  }

  /**
   * Pause window ends: resumes what the schedule paused, except the transfers of roots the
   * user paused meanwhile (those wait for the root's resume). Transfers paused by hand
   * before the window were never held, so they stay paused.
   */
  private releaseHeld(): void {
    const ofPausedRoots = new Set<number>();
    for (const r of this.d.repo.listRoots()) {
      if (!r.paused) continue;
      for (const row of this.d.repo.loadIndex(r.id).values())
        if (row.transferId !== null) ofPausedRoots.add(row.transferId);
    }
    const held = [...this.heldBySchedule];
    this.heldBySchedule.clear();
    for (const id of held) if (!ofPausedRoots.has(id)) this.d.control?.resume(id);
  }

  async close(): Promise<void> {
    this.unsubscribeQueue();
    if (this.scheduleTimer) clearTimeout(this.scheduleTimer);
    this.scheduleTimer = undefined;
    for (const r of this.roots.values()) await r.close();
    this.roots.clear();
    this.events.clear();
  }
}
