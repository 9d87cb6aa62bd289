import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccountAccess, UploadEngine } from '../engine/engine';
import type { Settings } from '../shared/contract';
import type { AppEvent, CoreProblem } from '../shared/events';
import type { AccountRepo } from '../store/account-repo';
import type { Db } from '../store/db';
import type { SyncRepo } from '../store/sync-repo';
import type { TransferQueryRepo } from '../store/transfer-query';
import type { SqliteTransferStore } from '../store/transfer-repo';
import type { RemoteOps } from '../sync/remote-ops';
import type { Schedule, ScheduleState } from '../sync/schedule';
import type { WatchManager } from '../sync/watch-manager';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import type { VcaTracker } from '../tasks/vca-tracker';
import type { MgrAccount } from '../tasks/deps';
import { Emitter } from '../base/emitter';
import { setUnexpectedErrorHandler } from '../base/unexpected-error';
import type { AccountAccessCache } from './accounts';
import type { AppCoreOptions } from './app-core-options';
import * as coreAccounts from './core-accounts';
import {
  applySettingsAtOpen,
  closeCoreParts,
  closeCoreResources,
  openCoreResources,
  startCoreParts,
  type CoreResources,
} from './core-lifecycle';
import { buildCoreParts, wireCoreEvents, type CoreParts } from './core-parts';
import type { CredentialHolds } from './credential-holds';
import type { EmbeddedEmulator } from './embedded';
import type { SecretStore } from './secrets';
import { SCHEDULE_SETTING, engineTuning, type SettingsStore } from './settings-store';
import type { Pauses } from './pauses';
import type { UploadSchedule } from './upload-schedule';
import type { UploadFollowUp } from './upload-follow-up';
import type { VcaRequestQueue } from './vca-requests';
import { startWakeDetector } from './wake-detector';

export { SCHEDULE_SETTING };
export type { AppCoreOptions };
export type { SessionAccountInput } from './core-accounts';

/**
 * Service-internal: front ends use `AppService` (app-service.ts), which holds its AppCore
 * privately; the fields below are for the service's areas.
 *
 * The app core (design.md "service/"): one database, the upload engine, the watch roots,
 * the Fmgr and VCA trackers, the account access (secrets resolved here, never handed out)
 * and, with no account configured, the embedded emulator and its Local account. Everything
 * the UI, the headless server and the CLI see goes through `on` as one typed event stream.
 *
 * Its parts are built in core-parts.ts (with the wiring between them: a finished upload's
 * mkfile reply → FmgrTracker.trackUpload; an uploaded video of a VCA-enabled root → a stored
 * VCA request → VcaTracker.create; local delete and rename of a watch root → tracked Fmgr
 * tasks), opened and closed in the order of core-lifecycle.ts.
 *
 * Lifecycle: `AppCore.open()` resolves once the engine runs, the trackers resumed and the
 * stored roots started (first scans done). `close()` disposes everything open() opened, in
 * reverse order, and is idempotent; nothing is left running after it resolves.
 */
export class AppCore {
  readonly db: Db;
  readonly dataDir: string;
  readonly secrets: SecretStore;
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
  /** The transfer list and the pause reasons (migration 005). */
  readonly transferRows: TransferQueryRepo;
  /** Every pause and resume of a transfer, with its reason. */
  readonly pauses: Pauses;
  /** The upload schedule and the engine's bandwidth limit (the smaller of the user's and the schedule's). */
  readonly uploadSchedule: UploadSchedule;
  readonly settingsStore: SettingsStore;
  /** The engine's own store (the add-files use case reads the newest transfer of a file from it). */
  readonly transferStore: SqliteTransferStore;
  /** Watched folders and their file index. */
  readonly syncRepo: SyncRepo;
  /** Transfers of an account whose credentials the service refused, held with reason `error` (credential-holds.ts). */
  readonly credentialHolds: CredentialHolds;

  private readonly events = new Emitter<AppEvent>('app core event listener');
  private readonly closing = new AbortController();
  private readonly access: AccountAccessCache;
  private readonly parts: CoreParts;
  private readonly followUp: UploadFollowUp;
  private readonly unsubscribers: Array<() => void>;
  private restoreUnexpected: (() => void) | undefined;
  private closed: Promise<void> | undefined;
  private stopWake: (() => void) | undefined;
  /** This run's own engine tuning (CLI flags): it keeps winning over settings changed while open. */
  private readonly runEngine: AppCoreOptions['engine'];

  private constructor(
    private readonly resources: CoreResources,
    opts: AppCoreOptions,
  ) {
    ({ db: this.db, dataDir: this.dataDir, secrets: this.secrets, embedded: this.embedded } = resources);
    this.access = resources.access;
    this.runEngine = opts.engine;
    if (opts.onEvent) this.events.add(opts.onEvent);
    const p = buildCoreParts({
      db: this.db,
      dataDir: this.dataDir,
      access: this.access,
      opts,
      publicBaseUrl: () => opts.publicBaseUrl,
      problem: (pr) => this.problem(pr),
      signal: this.closing.signal,
    });
    this.parts = p;
    this.accounts = p.accounts;
    this.settingsStore = p.settingsStore;
    this.transferStore = p.transferStore;
    this.transferRows = p.transferRows;
    this.engine = p.engine;
    this.pauses = p.pauses;
    this.uploadSchedule = p.uploadSchedule;
    this.fmgr = p.fmgr;
    this.vca = p.vca;
    this.remoteOps = p.remoteOps;
    this.syncRepo = p.syncRepo;
    this.vcaRequests = p.vcaRequests;
    this.watch = p.watch;
    this.followUp = p.followUp;
    this.credentialHolds = p.credentialHolds;
    this.notificationHandler = p.notificationHandler;
    this.unsubscribers = wireCoreEvents(p, (e) => this.events.emit(e), this.db.name);
  }

  /** Opens the database, the embedded emulator when due, the engine, trackers and watch roots (core-lifecycle.ts). */
  static async open(opts: AppCoreOptions): Promise<AppCore> {
    const resources = await openCoreResources(opts);
    let core: AppCore | undefined;
    try {
      core = new AppCore(resources, opts);
      core.restoreUnexpected = core.reportUnexpectedErrors();
      applySettingsAtOpen(core.parts, opts, (p) => core?.problem(p));
      await startCoreParts(core.parts, opts);
      if (opts.wakeDetector !== false) {
        const c = core;
        c.stopWake = startWakeDetector({ ...opts.wakeDetector, onWake: () => void c.rescanAll() });
      }
      return core;
    } catch (e) {
      if (core) await core.close();
      else await closeCoreResources(resources);
      throw e;
    }
  }

  /**
   * Subscribes to every event of the core; returns the unsubscribe function. A listener
   * that throws does not stop the others. Events never carry secrets.
   */
  on(listener: (e: AppEvent) => void): () => void {
    return this.events.add(listener);
  }

  /** The account's upload client and token source, as the engine's next transfer gets them. Throws AccountError. */
  uploadAccess(accountId: number): AccountAccess {
    return this.access.upload(accountId);
  }

  /** The account's management client, as the trackers' next request gets it; undefined without a management URL. */
  mgrAccess(accountId: number): MgrAccount | undefined {
    return this.access.mgr(accountId);
  }

  /** The Local account's id when the embedded emulator runs. */
  get localAccountId(): number | undefined {
    return this.embedded?.accountId;
  }

  /** An account given for this run only (core-accounts.ts). Returns its id. */
  useSessionAccount(a: coreAccounts.SessionAccountInput): number {
    const id = coreAccounts.useSessionAccount(this.accountDeps(), a);
    // The flags given again: what a refusal of the account's credentials held may go on.
    this.credentialHolds.release(id);
    return id;
  }

  /** After an account row changed: the next request of the engine and the trackers uses the row (core-accounts.ts). */
  accountChanged(accountId: number): void {
    coreAccounts.accountChanged(this.accountDeps(), accountId);
  }

  private accountDeps(): coreAccounts.CoreAccountsDeps {
    return { accounts: this.accounts, secrets: this.secrets, access: this.access, engine: this.engine };
  }

  /**
   * Applies the engine's settings now, with no restart (settings.set): concurrency, chunk
   * size, block size and conflict policy (UploadEngine.reconfigure); this run's CLI tuning
   * still wins. In-flight blocks finish with their old sizes; new files use the new ones.
   */
  tuneEngine(s: Settings): void {
    this.engine.reconfigure(engineTuning(s, this.runEngine));
  }

  /**
   * Sets the upload schedule (null: always run): checked (ScheduleError, code
   * 'invalid-schedule'), stored and applied now; applied again at every open. Returns the
   * state now.
   */
  setSchedule(schedule: Schedule | null): ScheduleState {
    const state = this.uploadSchedule.setSchedule(schedule);
    this.settingsStore.set({ schedule });
    return state;
  }

  /** The stored upload schedule, if one was set. */
  get schedule(): Schedule | undefined {
    return this.settingsStore.get().schedule ?? undefined;
  }

  /**
   * Reconciles every watching root (after the machine wakes). The core's wake detector
   * calls it; the Electron layer calls it on powerMonitor 'resume'. Never rejects: a
   * failure becomes a 'problem' event.
   */
  async rescanAll(): Promise<void> {
    try {
      await this.watch.rescanAll();
    } catch (e) {
      this.problem({
        code: 'rescan-failed',
        message: `Rescanning the watched folders after a wake failed: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
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

  close(): Promise<void> {
    this.closed ??= this.doClose();
    return this.closed;
  }

  private async doClose(): Promise<void> {
    this.closing.abort();
    this.stopWake?.();
    await closeCoreParts(this.parts, () => {
      for (const off of this.unsubscribers) off();
    });
    this.access.close();
    await this.embedded?.emulator.close();
    this.restoreUnexpected?.();
    this.events.clear();
    this.db.close();
    this.resources.lock?.release();
  }
}
