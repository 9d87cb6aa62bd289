import type { IncomingMessage, ServerResponse } from 'node:http';
import { DisposableStore } from '../base/disposable';
import { Emitter } from '../common/emitter';
import { setUnexpectedErrorHandler } from '../base/unexpected-error';
import type { UploadEngine } from '../engine/engine';
import type { AppEvent, CoreProblem } from '../shared/events';
import type { AccountRepo } from '../store/account-repo';
import type { RemoteOps } from '../sync/remote-ops';
import type { WatchManager } from '../sync/watch-manager';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import type { VcaTracker } from '../tasks/vca-tracker';
import type { AppCoreOptions } from './app-core-options';
import { buildCoreParts, wireCoreEvents, type CoreParts } from './core-parts';
import { openCoreResources, type CoreResources } from './core-resources';
import type { EmbeddedEmulator } from './embedded';
import { buildUseCases, type UseCases } from './use-cases';
import type { VcaRequestQueue } from './vca-requests';
import { startWakeDetector } from './wake-detector';

export type { AppCoreOptions };

/**
 * The app core (design.md "service/"), service-internal: `AppService` (app-service.ts) holds
 * it privately and hands its verbs only the use cases (`useCases`, use-cases/). One
 * database, the upload engine, the watch roots, the Fmgr and VCA trackers, the account
 * access (secrets resolved there, never handed out) and, with no account configured, the
 * embedded emulator and its Local account. Everything the doors see goes through `on` as
 * one typed event stream.
 *
 * The one lifecycle: every start is paired with its release in one DisposableStore
 * (`lifetime`), added in the order things open (core-resources.ts: queue lock → database →
 * account access → embedded emulator; then the parts of core-parts.ts, the use cases, and
 * at start the settings, engine, trackers, roots and wake detector), so `close()` releases
 * them newest first, once, each awaited, one failure not stopping the rest. A failed open
 * releases what it opened the same way.
 *
 * `AppCore.open()` resolves once the engine runs, the trackers resumed and the stored roots
 * started (first scans done). The parts below stay readable for the tests that drive them.
 */
export class AppCore {
  readonly dataDir: string;
  readonly embedded: EmbeddedEmulator | undefined;
  readonly accounts: AccountRepo;
  readonly engine: UploadEngine;
  readonly watch: WatchManager;
  readonly fmgr: FmgrTracker;
  readonly vca: VcaTracker;
  readonly remoteOps: RemoteOps;
  /** VCA jobs still to create for uploaded videos (stored, retried with backoff, resumed at open). */
  readonly vcaRequests: VcaRequestQueue;
  /** Mount under the public base URL's path: POST …/notify/fmgr and …/notify/vca. */
  readonly notificationHandler: (req: IncomingMessage, res: ServerResponse) => void;
  /** What the service's verbs act through (use-cases/index.ts). */
  readonly useCases: UseCases;

  private readonly events = new Emitter<AppEvent>('app core event listener');
  private readonly parts: CoreParts;

  private constructor(
    r: CoreResources,
    opts: AppCoreOptions,
    private readonly lifetime: DisposableStore,
  ) {
    ({ dataDir: this.dataDir, embedded: this.embedded } = r);
    if (opts.onEvent) this.events.add(opts.onEvent);
    lifetime.add(() => this.events.clear());
    lifetime.add(this.reportUnexpectedErrors());
    const closing = new AbortController();
    const problem = (pr: CoreProblem) => this.problem(pr);
    const p = buildCoreParts({
      db: r.db,
      dataDir: r.dataDir,
      access: r.access,
      opts,
      publicBaseUrl: () => opts.publicBaseUrl,
      problem,
      signal: closing.signal,
    });
    // Released in the reverse order: schedule, roots, engine, follow-ups, event wiring, trackers.
    lifetime.add(() => p.vca.dispose());
    lifetime.add(() => p.fmgr.dispose());
    for (const off of wireCoreEvents(p, (e) => this.events.emit(e), r.db.name)) lifetime.add(off);
    lifetime.add(async () => {
      p.followUp.dispose();
      await p.followUp.settle();
    });
    lifetime.add(() => p.engine.close());
    lifetime.add(() => p.watch.close());
    lifetime.add(() => p.uploadSchedule.close());
    const { useCases, disposables } = buildUseCases(r, p, opts, problem);
    for (const d of disposables) lifetime.add(d);
    // First at close: what waits on the network (remote operations, VCA creations) stops waiting.
    lifetime.add(() => closing.abort());
    this.parts = p;
    this.useCases = useCases;
    this.accounts = p.accounts;
    this.engine = p.engine;
    this.watch = p.watch;
    this.fmgr = p.fmgr;
    this.vca = p.vca;
    this.remoteOps = p.remoteOps;
    this.vcaRequests = p.vcaRequests;
    this.notificationHandler = p.notificationHandler;
  }

  /** Opens the database, the embedded emulator when due, the engine, trackers and watch roots. */
  static async open(opts: AppCoreOptions): Promise<AppCore> {
    const lifetime = new DisposableStore();
    try {
      const core = new AppCore(await openCoreResources(opts, lifetime), opts, lifetime);
      await core.start(opts);
      return core;
    } catch (e) {
      await lifetime.dispose();
      throw e;
    }
  }

  /**
   * Starts what the options ask, in order: the stored settings (before the engine, so a pause
   * window holds what a killed run left running), the engine, the trackers and follow-ups,
   * the stored roots (first scans done), the wake detector.
   */
  private async start(opts: AppCoreOptions): Promise<void> {
    const p = this.parts;
    this.useCases.settings.applyAtOpen(opts.startEngine !== false);
    if (opts.startEngine !== false) p.engine.start();
    if (opts.resumeTrackers !== false) {
      p.fmgr.resume();
      p.vca.resume();
      p.followUp.resume();
    }
    if (opts.startWatching !== false) await p.watch.startAll();
    if (opts.wakeDetector !== false)
      this.lifetime.add(
        startWakeDetector({ ...opts.wakeDetector, onWake: () => void this.useCases.roots.rescanAll() }),
      );
  }

  /**
   * Subscribes to every event of the core; returns the unsubscribe function. A listener
   * that throws does not stop the others. Events never carry secrets.
   */
  on(listener: (e: AppEvent) => void): () => void {
    return this.events.add(listener);
  }

  /** The Local account's id when the embedded emulator runs. */
  get localAccountId(): number | undefined {
    return this.embedded?.accountId;
  }

  /**
   * While the core is open, an error nobody awaited (a listener that threw, a background
   * promise that rejected) becomes a problem event: the doors log it and show it. Returns
   * the function that puts the previous handler back.
   */
  private reportUnexpectedErrors(): () => void {
    return setUnexpectedErrorHandler((e, context) => {
      const what = e instanceof Error ? e.message : String(e);
      this.problem({
        code: 'internal',
        message: `Something went wrong inside Blocklift${context ? ` (${context})` : ''}: ${what}`,
      });
    });
  }

  private problem(p: CoreProblem): void {
    this.events.emit({ type: 'problem', problem: p });
  }

  /** Releases everything open() opened, newest first; idempotent. */
  close(): Promise<void> {
    return this.lifetime.dispose();
  }
}
