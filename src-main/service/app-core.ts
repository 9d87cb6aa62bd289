import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { UploadEngine, type AccountAccess, type EngineOptions } from '../engine/engine';
import type { StartEmulatorOptions } from '../emulator/server';
import type { AppEvent, CoreProblem } from '../shared/events';
import { AccountRepo } from '../store/account-repo';
import { openAppDatabase } from '../store/app-db';
import type { Db } from '../store/db';
import { SettingsRepo } from '../store/settings-repo';
import { SyncRepo } from '../store/sync-repo';
import { SqliteTransferStore } from '../store/transfer-repo';
import { VcaRequestsRepo } from '../store/vca-requests-repo';
import { TransferQueryRepo } from '../store/transfer-query';
import type { RemoteOps } from '../sync/remote-ops';
import type { Schedule, ScheduleState } from '../sync/schedule';
import { WatchManager } from '../sync/watch-manager';
import { RUNNING_STATES } from '../engine/snapshot';
import type { WatcherBackend } from '../sync/watcher';
import { FmgrTracker } from '../tasks/fmgr-tracker';
import { createNotificationHandler } from '../tasks/notify-receiver';
import type { PollPolicy } from '../tasks/poll-policy';
import { VcaTracker } from '../tasks/vca-tracker';
import { AccountAccessCache } from './accounts';
import { AccountPrefs } from './account-prefs';
import { LOCAL_ACCOUNT_NAME, startEmbedded, type EmbeddedEmulator } from './embedded';
import { Emitter } from '../base/emitter';
import { setUnexpectedErrorHandler } from '../base/unexpected-error';
import type { MgrAccount } from '../tasks/deps';
import { HeadlessSecretStore, SECRETS_DIR, type SecretStore } from './secrets';
import { trackedRemoteOps } from './tracked-remote-ops';
import { UploadFollowUp } from './upload-follow-up';
import { VcaRequestQueue } from './vca-requests';
import { startWakeDetector, type WakeDetectorOptions } from './wake-detector';
import { Pauses } from './pauses';
import { SCHEDULE_SETTING, SettingsStore } from './settings-store';
import { UploadSchedule } from './upload-schedule';
import { lockQueue, type QueueLock } from './queue-lock';

export { SCHEDULE_SETTING };

export interface AppCoreOptions {
  /** The app's data folder: database, Local account key file, embedded emulator data. */
  dataDir: string;
  /** Default <dataDir>/blocklift.db. */
  dbFile?: string;
  /**
   * true: always start the embedded emulator and its Local account; false: never;
   * undefined ('auto'): start it when no account other than Local is configured.
   */
  embeddedEmulator?: boolean;
  /** Options of the embedded emulator (tests shorten its delays). */
  emulatorOptions?: Partial<StartEmulatorOptions>;
  /** The URL the service can reach the app's notification handler at; submissions carry notify URLs below it. */
  publicBaseUrl?: string;
  watcherBackend?: WatcherBackend;
  /** Default: HeadlessSecretStore (env:, file:, memory:). The Electron layer passes its own. */
  secrets?: SecretStore;
  /** Where an account's `system` proxy is read from (HTTP_PROXY, HTTPS_PROXY, NO_PROXY); default process.env. */
  proxyEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Engine tuning for this run only (CLI flags); it wins over the stored settings. A
   * `bandwidthBytesPerSec` here is the user's limit for this run (the schedule's still applies).
   */
  engine?: Omit<EngineOptions, 'store' | 'account'>;
  /** The clock the upload schedule is read with (tests move it). */
  scheduleClock?: () => Date;
  pollPolicy?: PollPolicy;
  /** Start uploading queued transfers at open (default true); a dry run passes false and never starts it. */
  startEngine?: boolean;
  /** Resume polling the tracked Fmgr tasks and VCA jobs at open (default true); a one-shot command passes false. */
  resumeTrackers?: boolean;
  /**
   * What this process runs, named in the queue lock (`<db>.lock`, queue-lock.ts) another
   * process that wants the queue is refused with. Default: the lock is taken as 'the Blocklift
   * app' when the engine starts at open, and not at all otherwise; a caller that starts the
   * engine later (`blocklift watch`) names itself here; false: never (readers). open()
   * rejects with QueueInUseError, before the database is opened, when another live process
   * holds it; close() releases it.
   */
  queueLock?: string | false;
  /** Start the stored watch roots at open (default true). */
  startWatching?: boolean;
  /** How long a watch root waits for an Fmgr delete/copy/move (default 10 minutes). */
  remoteOpTimeoutMs?: number;
  /** Sleep/wake detection (tests inject clock and timer); false turns it off. Default on. */
  wakeDetector?: Omit<WakeDetectorOptions, 'onWake'> | false;
  /**
   * Receives every event from the start, before open() resolves: trackers and VCA requests
   * resumed at open may emit (even reach done) while the stored roots are still starting, and a
   * listener added with `on` after open() would miss those.
   */
  onEvent?: (e: AppEvent) => void;
}

/**
 * Service-internal: front ends use `AppService` (app-service.ts), which holds its AppCore
 * privately; the fields below are for the service's areas and, until they move to the
 * service, the CLI commands that still open a core themselves.
 *
 * The app core (design.md "service/"): one database, the upload engine, the watch roots,
 * the Fmgr and VCA trackers, the account access (secrets resolved here, never handed out)
 * and, with no account configured, the embedded emulator and its Local account. Everything
 * the UI, the headless server and the CLI see goes through `on` as one typed event stream.
 *
 * Wiring it owns: a finished upload's mkfile reply → FmgrTracker.trackUpload (persistentOps);
 * an uploaded video of a VCA-enabled root → a stored VCA request → VcaTracker.create; local delete and
 * rename of a watch root → tracked Fmgr tasks (tracked-remote-ops.ts).
 *
 * Lifecycle: `AppCore.open()` resolves once the engine runs, the trackers resumed and the
 * stored roots started (first scans done). `close()` disposes everything open() opened, in
 * reverse order, and is idempotent; nothing is left running after it resolves.
 */
export class AppCore {
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

  private readonly events = new Emitter<AppEvent>('app core event listener');
  private readonly closing = new AbortController();
  private readonly followUp: UploadFollowUp;
  private readonly unsubscribers: Array<() => void> = [];
  private restoreUnexpected: (() => void) | undefined;
  private closed: Promise<void> | undefined;
  private publicBaseUrl: string | undefined;
  private stopWake: (() => void) | undefined;

  private constructor(
    readonly db: Db,
    readonly dataDir: string,
    readonly secrets: SecretStore,
    private readonly access: AccountAccessCache,
    readonly embedded: EmbeddedEmulator | undefined,
    opts: AppCoreOptions,
    private readonly lock: QueueLock | undefined,
  ) {
    this.publicBaseUrl = opts.publicBaseUrl;
    if (opts.onEvent) this.events.add(opts.onEvent);
    this.accounts = new AccountRepo(db);
    this.settingsStore = new SettingsStore(new SettingsRepo(db));
    const store = new SqliteTransferStore(db);
    this.transferStore = store;
    this.transferRows = new TransferQueryRepo(db);
    const settings = this.settingsStore.get();
    this.engine = new UploadEngine({
      ...this.settingsStore.engineOptions(settings),
      ...opts.engine,
      store,
      account: (id) => access.upload(id),
    });
    this.pauses = new Pauses({
      queue: this.engine,
      control: this.engine,
      repo: this.transferRows,
      scheduleHolds: () => this.uploadSchedule.holds(),
    });
    this.uploadSchedule = new UploadSchedule({
      queue: this.engine,
      control: this.engine,
      pauses: this.pauses,
      repo: this.transferRows,
      now: opts.scheduleClock,
    });
    const trackerDeps = {
      db,
      account: (id: number) => access.mgr(id),
      publicBaseUrl: () => this.publicBaseUrl,
      ...(opts.pollPolicy ? { policy: opts.pollPolicy } : {}),
    };
    this.fmgr = new FmgrTracker(trackerDeps);
    this.vca = new VcaTracker(trackerDeps);
    this.remoteOps = trackedRemoteOps(this.fmgr, { timeoutMs: opts.remoteOpTimeoutMs, signal: this.closing.signal });
    const syncRepo = new SyncRepo(db);
    this.syncRepo = syncRepo;
    this.vcaRequests = new VcaRequestQueue({
      repo: new VcaRequestsRepo(db),
      accounts: this.accounts,
      vca: this.vca,
      problem: (p) => this.problem(p),
      signal: this.closing.signal,
      ...(opts.pollPolicy ? { policy: opts.pollPolicy } : {}),
    });
    this.watch = new WatchManager({
      repo: syncRepo,
      queue: this.engine,
      control: { pause: (id) => this.pauses.pause(id, 'root'), resume: (id) => this.pauses.resume(id, 'root') },
      remote: this.remoteOps,
      dataDir,
      backend: opts.watcherBackend,
    });
    this.followUp = new UploadFollowUp({
      accounts: this.accounts,
      roots: syncRepo,
      transfers: store,
      fmgr: this.fmgr,
      vcaRequests: this.vcaRequests,
      problem: (p) => this.problem(p),
    });
    this.notificationHandler = createNotificationHandler({
      publicBaseUrl: () => this.publicBaseUrl,
      accountByAccessKey: (ak) => access.byAccessKey(ak),
      fmgr: this.fmgr,
      vca: this.vca,
    });
    const emit = (e: AppEvent) => this.events.emit(e);
    this.unsubscribers.push(
      this.engine.onTransferChange((t) => {
        emit({ type: 'transfer-changed', transfer: t });
        if (t.state === 'done') this.followUp.transferDone(t.id);
      }),
      this.engine.onProgress((p) => emit({ type: 'transfer-progress', progress: p })),
      this.watch.on((e) => {
        emit({ type: 'watch', event: e });
        if (e.type === 'file-done' && e.vcaRequested) this.followUp.videoUploaded(e.rootId, e.key);
      }),
      this.fmgr.onChange((t) => emit({ type: 'fmgr-task-changed', task: t })),
      this.vca.onChange((j) => emit({ type: 'vca-job-changed', job: j })),
    );
  }

  /** Opens the database, the embedded emulator when due, the engine, trackers and watch roots. */
  static async open(opts: AppCoreOptions): Promise<AppCore> {
    const dataDir = path.resolve(opts.dataDir);
    const dbFile = opts.dbFile ?? path.join(dataDir, 'blocklift.db');
    const lockAs = opts.queueLock ?? (opts.startEngine !== false && 'the Blocklift app');
    if (lockAs) mkdirSync(path.dirname(path.resolve(dbFile)), { recursive: true });
    const lock = lockAs ? lockQueue(dbFile, lockAs) : undefined;
    let db: Db;
    try {
      db = openAppDatabase(dbFile);
    } catch (e) {
      lock?.release();
      throw e;
    }
    let embedded: EmbeddedEmulator | undefined;
    let core: AppCore | undefined;
    const secrets = opts.secrets ?? new HeadlessSecretStore(process.env, path.join(dataDir, SECRETS_DIR));
    const prefs = new AccountPrefs(new SettingsRepo(db));
    const access = new AccountAccessCache(new AccountRepo(db), secrets, (id) => prefs.proxyOf(id), opts.proxyEnv);
    try {
      const accounts = new AccountRepo(db);
      const wantEmbedded = opts.embeddedEmulator ?? accounts.list().every((a) => a.name === LOCAL_ACCOUNT_NAME);
      if (wantEmbedded) embedded = await startEmbedded(dataDir, accounts, opts.emulatorOptions);
      core = new AppCore(db, dataDir, secrets, access, embedded, opts, lock);
      core.restoreUnexpected = core.reportUnexpectedErrors();
      core.applySettingsAtOpen(opts);
      if (opts.startEngine !== false) core.engine.start();
      if (opts.resumeTrackers !== false) {
        core.fmgr.resume();
        core.vca.resume();
        core.followUp.resume();
      }
      if (opts.startWatching !== false) await core.watch.startAll();
      if (opts.wakeDetector !== false) {
        const c = core;
        c.stopWake = startWakeDetector({ ...opts.wakeDetector, onWake: () => void c.rescanAll() });
      }
      return core;
    } catch (e) {
      if (core) await core.close();
      else {
        access.close();
        await embedded?.emulator.close();
        db.close();
        lock?.release();
      }
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

  /** Changes the public base URL (settings); new submissions carry notify URLs below it. */
  setPublicBaseUrl(url: string | undefined): void {
    this.publicBaseUrl = url;
  }

  /**
   * An account given for this run only (CLI flags): upserted by name, its secret kept in
   * memory (a `memory:` reference in the row), never written to disk. Returns its id.
   */
  useSessionAccount(a: {
    name: string;
    uploadUrl: string;
    mgrUrl?: string;
    downloadDomain?: string;
    accessKey?: string;
    secretKey?: string;
    tokenUrl?: string;
  }): number {
    const secretRef = a.secretKey ? this.secrets.remember(a.name, a.secretKey) : null;
    const id = this.accounts.upsert({
      name: a.name,
      uploadUrl: a.uploadUrl,
      mgrUrl: a.mgrUrl ?? null,
      downloadDomain: a.downloadDomain ?? null,
      accessKey: a.accessKey ?? null,
      secretRef,
      tokenUrl: a.tokenUrl ?? null,
    });
    this.access.forget(id);
    return id;
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
   * At open, before the engine starts: the user's bandwidth limit and the stored schedule,
   * applied together (the effective limit is the smaller). What a killed run left running
   * counts as queued first, so a pause window holds it before it can start.
   */
  private applySettingsAtOpen(opts: AppCoreOptions): void {
    const s = this.settingsStore.get();
    const userLimit =
      opts.engine?.bandwidthBytesPerSec !== undefined ? opts.engine.bandwidthBytesPerSec : s.bandwidthLimit;
    if (opts.startEngine !== false) this.transferStore.moveStates(RUNNING_STATES, 'queued');
    try {
      this.uploadSchedule.start(s.schedule, userLimit);
    } catch (e) {
      this.uploadSchedule.start(null, userLimit);
      this.problem({
        code: 'invalid-schedule',
        message: `The stored upload schedule is not valid and was not applied (${e instanceof Error ? e.message : String(e)}); set it again in Settings.`,
      });
    }
  }

  /**
   * After an account row changed (URLs, keys, secret): the next request of the engine and
   * of the trackers builds new clients from the row. Transfers running now keep theirs
   * until they end; every later one, and every poll, uses the new ones.
   */
  accountChanged(accountId: number): void {
    this.access.forget(accountId);
    this.engine.forgetAccount(accountId);
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
    this.uploadSchedule.close();
    await this.watch.close();
    await this.engine.close();
    this.followUp.dispose();
    await this.followUp.settle();
    for (const off of this.unsubscribers) off();
    await this.fmgr.dispose();
    await this.vca.dispose();
    this.access.close();
    await this.embedded?.emulator.close();
    this.restoreUnexpected?.();
    this.events.clear();
    this.db.close();
    this.lock?.release();
  }
}
