import type { IncomingMessage, ServerResponse } from 'node:http';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { UploadEngine } from '../engine/engine';
import type { AppEvent, CoreProblem } from '../shared/events';
import { AccountRepo } from '../store/account-repo';
import type { Db } from '../store/db';
import { SettingsRepo } from '../store/settings-repo';
import { SyncRepo } from '../store/sync-repo';
import { TransferQueryRepo } from '../store/transfer-query';
import { SqliteTransferStore } from '../store/transfer-repo';
import { VcaRequestsRepo } from '../store/vca-requests-repo';
import type { RemoteOps } from '../sync/remote-ops';
import { WatchManager } from '../sync/watch-manager';
import { FmgrTracker } from '../tasks/fmgr-tracker';
import { createNotificationHandler } from '../tasks/notify-receiver';
import { VcaTracker } from '../tasks/vca-tracker';
import type { AccountAccessCache } from './accounts';
import type { AppCoreOptions } from './app-core-options';
import { CredentialHolds } from './credential-holds';
import { Pauses } from './pauses';
import { SettingsStore } from './settings-store';
import { trackedRemoteOps } from './tracked-remote-ops';
import { UploadFollowUp } from './upload-follow-up';
import { UploadSchedule } from './upload-schedule';
import { DISK_FREE_CHECK_MS, DiskFullProblems } from './disk-full-problems';
import { withTrackedFmgr } from './engine-fmgr';
import { VcaRequestQueue } from './vca-requests';

/** The parts of the app core, built over one open database (service-internal). */
export interface CoreParts {
  accounts: AccountRepo;
  settingsStore: SettingsStore;
  /** The engine's own store (the add-files use case reads the newest transfer of a file from it). */
  transferStore: SqliteTransferStore;
  /** The transfer list and the pause reasons (migration 005). */
  transferRows: TransferQueryRepo;
  engine: UploadEngine;
  /** Every pause and resume of a transfer, with its reason. */
  pauses: Pauses;
  /** The upload schedule and the engine's bandwidth limit (the smaller of the user's and the schedule's). */
  uploadSchedule: UploadSchedule;
  fmgr: FmgrTracker;
  vca: VcaTracker;
  remoteOps: RemoteOps;
  /** Watched folders and their file index. */
  syncRepo: SyncRepo;
  /** VCA jobs still to create for uploaded videos (stored, retried with backoff, resumed at open). */
  vcaRequests: VcaRequestQueue;
  watch: WatchManager;
  followUp: UploadFollowUp;
  /** Transfers of an account whose credentials the service refused, held with reason `error`. */
  credentialHolds: CredentialHolds;
  /** Mount under the public base URL's path: POST …/notify/fmgr and …/notify/vca. */
  notificationHandler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface CorePartsDeps {
  db: Db;
  dataDir: string;
  access: AccountAccessCache;
  opts: AppCoreOptions;
  publicBaseUrl: () => string | undefined;
  problem: (p: CoreProblem) => void;
  /** Aborted when the core closes. */
  signal: AbortSignal;
}

/**
 * Builds every part in dependency order: stores, then the engine (its options from the stored
 * settings, this run's CLI tuning winning), pauses and the schedule over it, the trackers, the
 * watch manager and the upload follow-up. Nothing starts here; core-lifecycle.ts starts them.
 */
export function buildCoreParts(d: CorePartsDeps): CoreParts {
  const { db, access, opts } = d;
  const accounts = new AccountRepo(db);
  const settingsStore = new SettingsStore(new SettingsRepo(db));
  const transferStore = new SqliteTransferStore(db);
  const transferRows = new TransferQueryRepo(db);
  const engine = new UploadEngine({
    ...settingsStore.engineOptions(settingsStore.get()),
    ...opts.engine,
    store: transferStore,
    // Called once the engine runs, when the tracker exists.
    account: (id) => withTrackedFmgr(access.upload(id), id, () => fmgr),
  });
  const pauses: Pauses = new Pauses({
    queue: engine,
    control: engine,
    repo: transferRows,
    // Called only after construction, when uploadSchedule exists.
    scheduleHolds: (): boolean => uploadSchedule.holds(),
  });
  const uploadSchedule = new UploadSchedule({
    queue: engine,
    control: engine,
    pauses,
    repo: transferRows,
    now: opts.scheduleClock,
  });
  const trackerDeps = {
    db,
    account: (id: number) => access.mgr(id),
    publicBaseUrl: d.publicBaseUrl,
    ...(opts.pollPolicy ? { policy: opts.pollPolicy } : {}),
  };
  const fmgr = new FmgrTracker(trackerDeps);
  const vca = new VcaTracker(trackerDeps);
  const remoteOps = trackedRemoteOps(fmgr, { timeoutMs: opts.remoteOpTimeoutMs, signal: d.signal });
  const syncRepo = new SyncRepo(db);
  const vcaRequests = new VcaRequestQueue({
    repo: new VcaRequestsRepo(db),
    accounts,
    vca,
    problem: d.problem,
    signal: d.signal,
    ...(opts.pollPolicy ? { policy: opts.pollPolicy } : {}),
  });
  const watch = new WatchManager({
    repo: syncRepo,
    queue: engine,
    control: { pause: (id) => pauses.pause(id, 'root'), resume: (id) => pauses.resume(id, 'root') },
    remote: remoteOps,
    dataDir: d.dataDir,
    backend: opts.watcherBackend,
  });
  const followUp = new UploadFollowUp({
    accounts,
    roots: syncRepo,
    transfers: transferStore,
    fmgr,
    vcaRequests,
    problem: d.problem,
  });
  const credentialHolds = new CredentialHolds({
    repo: transferRows,
    pauses,
    accountName: (id) => accounts.get(id)?.name,
    problem: d.problem,
  });
  const notificationHandler = createNotificationHandler({
    publicBaseUrl: d.publicBaseUrl,
    accountByAccessKey: (ak) => access.byAccessKey(ak),
    fmgr,
    vca,
  });
  return {
    accounts,
    settingsStore,
    transferStore,
    transferRows,
    engine,
    pauses,
    uploadSchedule,
    fmgr,
    vca,
    remoteOps,
    syncRepo,
    vcaRequests,
    watch,
    followUp,
    credentialHolds,
    notificationHandler,
  };
}

/**
 * The core's one event stream from its parts, and the wiring between them: a finished
 * upload → its follow-up (persistentOps task), a refusal of an account's credentials → a
 * hold of its transfers, an uploaded video of a VCA root → a VCA request. Returns the
 * unsubscribe functions.
 */
export function wireCoreEvents(p: CoreParts, emit: (e: AppEvent) => void, dbFile: string): Array<() => void> {
  const diskFull = new DiskFullProblems(dbFile, (problem) => emit({ type: 'problem', problem }));
  // The database's disk, read every few seconds: its writes may not fail on a full disk at once.
  const freeCheck = setInterval(() => {
    statfs(path.dirname(dbFile)).then(
      (s) => diskFull.freeSpace(s.bavail * s.bsize),
      () => undefined, // a statfs that fails says nothing about the space
    );
  }, DISK_FREE_CHECK_MS);
  freeCheck.unref();
  return [
    () => clearInterval(freeCheck),
    p.engine.onTransferChange((t) => {
      emit({ type: 'transfer-changed', transfer: t });
      if (t.state === 'done') p.followUp.transferDone(t.id);
      p.credentialHolds.transferChanged(t);
    }),
    p.engine.onProgress((pr) => {
      emit({ type: 'transfer-progress', progress: pr });
      diskFull.progress(pr);
    }),
    p.watch.on((e) => {
      emit({ type: 'watch', event: e });
      if (e.type === 'file-done' && e.vcaRequested) p.followUp.videoUploaded(e.rootId, e.key);
    }),
    p.fmgr.onChange((t) => emit({ type: 'fmgr-task-changed', task: t })),
    p.vca.onChange((j) => emit({ type: 'vca-job-changed', job: j })),
  ];
}
