import { onUnexpectedError } from '../base/unexpected-error';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DisposableStore } from '../base/disposable';
import { AccountRepo } from '../store/account-repo';
import { startWalCheckpointer } from '../store/wal-checkpoint';
import { openAppDatabase } from '../store/app-db';
import type { Db } from '../store/db';
import { SettingsRepo } from '../store/settings-repo';
import { AccountAccessCache } from './accounts';
import { AccountPrefs } from './account-prefs';
import type { AppCoreOptions } from './app-core-options';
import { LOCAL_ACCOUNT_NAME, startEmbedded, type EmbeddedEmulator } from './embedded';
import { lazyLogFile } from './log-file';
import { lockQueue } from './queue-lock';
import { HeadlessSecretStore, SECRETS_DIR, type SecretStore } from './secrets';

/** What the core holds below its parts: opened first, released last (service-internal). */
export interface CoreResources {
  dataDir: string;
  db: Db;
  secrets: SecretStore;
  /** The default account and each account's proxy (read by the account access and the accounts use case). */
  prefs: AccountPrefs;
  access: AccountAccessCache;
  embedded: EmbeddedEmulator | undefined;
}

/**
 * Opens, in this order, each release handed to `lifetime` as soon as it is open: the queue
 * lock (when this run uploads or names itself), the database, the account access and, when
 * due, the embedded emulator. On failure the caller disposes `lifetime`, which releases what
 * was opened, newest first.
 */
export async function openCoreResources(opts: AppCoreOptions, lifetime: DisposableStore): Promise<CoreResources> {
  const dataDir = path.resolve(opts.dataDir);
  const dbFile = opts.dbFile ?? path.join(dataDir, 'blocklift.db');
  const lockAs = opts.queueLock ?? (opts.startEngine !== false && 'the Blocklift app');
  if (lockAs) {
    mkdirSync(path.dirname(path.resolve(dbFile)), { recursive: true });
    const lock = lockQueue(dbFile, lockAs);
    lifetime.add(() => lock.release());
  }
  const db = openAppDatabase(dbFile);
  lifetime.add(() => db.close());
  // Checkpoints in a thread of their own: one on a commit held the main loop on a busy disk.
  const checkpointer = startWalCheckpointer(db, {
    onError: (message) => onUnexpectedError(new Error(message), 'app database checkpoint'),
  });
  lifetime.add(() => checkpointer.stop());
  const secrets = opts.secrets ?? new HeadlessSecretStore(process.env, path.join(dataDir, SECRETS_DIR));
  const prefs = new AccountPrefs(new SettingsRepo(db));
  const access = new AccountAccessCache(new AccountRepo(db), secrets, (id) => prefs.proxyOf(id), opts.proxyEnv);
  lifetime.add(() => access.close());
  const accounts = new AccountRepo(db);
  const wantEmbedded = opts.embeddedEmulator ?? accounts.list().every((a) => a.name === LOCAL_ACCOUNT_NAME);
  const logger = opts.logger ?? lazyLogFile(dataDir);
  const embedded = wantEmbedded ? await startEmbedded(dataDir, accounts, opts.emulatorOptions, logger) : undefined;
  if (embedded) lifetime.add(() => embedded.emulator.close());
  return { dataDir, db, secrets, prefs, access, embedded };
}
