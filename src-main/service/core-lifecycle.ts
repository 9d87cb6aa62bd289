import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { RUNNING_STATES } from '../engine/snapshot';
import type { CoreProblem } from '../shared/events';
import { AccountRepo } from '../store/account-repo';
import { openAppDatabase } from '../store/app-db';
import type { Db } from '../store/db';
import { SettingsRepo } from '../store/settings-repo';
import { AccountAccessCache } from './accounts';
import { AccountPrefs } from './account-prefs';
import type { AppCoreOptions } from './app-core-options';
import type { CoreParts } from './core-parts';
import { LOCAL_ACCOUNT_NAME, startEmbedded, type EmbeddedEmulator } from './embedded';
import { lazyLogFile } from './log-file';
import { lockQueue, type QueueLock } from './queue-lock';
import { HeadlessSecretStore, SECRETS_DIR, type SecretStore } from './secrets';

/**
 * The app core's open and close order (service-internal). Open: queue lock → database →
 * account access → embedded emulator (when due) → parts (core-parts.ts) → settings at open →
 * engine → trackers → watch roots → wake detector. Close: the reverse.
 */

/** What the core holds below its parts: opened first, released last. */
export interface CoreResources {
  dataDir: string;
  db: Db;
  secrets: SecretStore;
  access: AccountAccessCache;
  embedded: EmbeddedEmulator | undefined;
  lock: QueueLock | undefined;
}

/**
 * Takes the queue lock (when this run uploads or names itself), opens the database, the
 * account access and, when due, the embedded emulator. On failure what was opened is released.
 */
export async function openCoreResources(opts: AppCoreOptions): Promise<CoreResources> {
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
  const secrets = opts.secrets ?? new HeadlessSecretStore(process.env, path.join(dataDir, SECRETS_DIR));
  const prefs = new AccountPrefs(new SettingsRepo(db));
  const access = new AccountAccessCache(new AccountRepo(db), secrets, (id) => prefs.proxyOf(id), opts.proxyEnv);
  try {
    const accounts = new AccountRepo(db);
    const wantEmbedded = opts.embeddedEmulator ?? accounts.list().every((a) => a.name === LOCAL_ACCOUNT_NAME);
    const logger = opts.logger ?? lazyLogFile(dataDir);
    const embedded = wantEmbedded ? await startEmbedded(dataDir, accounts, opts.emulatorOptions, logger) : undefined;
    return { dataDir, db, secrets, access, embedded, lock };
  } catch (e) {
    access.close();
    db.close();
    lock?.release();
    throw e;
  }
}

/** Releases what openCoreResources opened, in reverse order. */
export async function closeCoreResources(r: CoreResources): Promise<void> {
  r.access.close();
  await r.embedded?.emulator.close();
  r.db.close();
  r.lock?.release();
}

/**
 * At open, before the engine starts: the user's bandwidth limit and the stored schedule,
 * applied together (the effective limit is the smaller). What a killed run left running
 * counts as queued first, so a pause window holds it before it can start.
 */
export function applySettingsAtOpen(p: CoreParts, opts: AppCoreOptions, problem: (p: CoreProblem) => void): void {
  const s = p.settingsStore.get();
  const userLimit =
    opts.engine?.bandwidthBytesPerSec !== undefined ? opts.engine.bandwidthBytesPerSec : s.bandwidthLimit;
  if (opts.startEngine !== false) p.transferStore.moveStates(RUNNING_STATES, 'queued');
  try {
    p.uploadSchedule.start(s.schedule, userLimit);
  } catch (e) {
    p.uploadSchedule.start(null, userLimit);
    problem({
      code: 'invalid-schedule',
      message: `The stored upload schedule is not valid and was not applied (${e instanceof Error ? e.message : String(e)}); set it again in Settings.`,
    });
  }
}

/** Starts the parts as the options ask: the engine, the trackers, then the stored roots (first scans done). */
export async function startCoreParts(p: CoreParts, opts: AppCoreOptions): Promise<void> {
  if (opts.startEngine !== false) p.engine.start();
  if (opts.resumeTrackers !== false) {
    p.fmgr.resume();
    p.vca.resume();
    p.followUp.resume();
  }
  if (opts.startWatching !== false) await p.watch.startAll();
}

/** Stops the parts in reverse order: schedule, roots, engine, follow-ups, trackers. */
export async function closeCoreParts(p: CoreParts, unsubscribe: () => void): Promise<void> {
  p.uploadSchedule.close();
  await p.watch.close();
  await p.engine.close();
  p.followUp.dispose();
  await p.followUp.settle();
  unsubscribe();
  await p.fmgr.dispose();
  await p.vca.dispose();
}
