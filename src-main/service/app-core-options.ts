import type { Logger } from '../base/logger';
import type { EngineOptions } from '../engine/engine';
import type { EmbeddedEmulatorOptions } from './embedded';
import type { AppEvent } from '../shared/events';
import type { WatcherBackend } from '../sync/watcher';
import type { PollPolicy } from '../tasks/poll-policy';
import type { SecretStore } from './secrets';
import type { WakeDetectorOptions } from './wake-detector';

/** What `AppCore.open` (app-core.ts) is told: where the data lives, what to start, test seams. */
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
  emulatorOptions?: EmbeddedEmulatorOptions;
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
   * Where parts with no reply or event to carry a report write it (the embedded emulator's
   * internal errors), never process.stderr. The doors pass their log file's
   * (`RotatingLog.logger()`); default: the app's log file, <dataDir>/logs/blocklift.log.
   */
  logger?: Logger;
  /**
   * Receives every event from the start, before open() resolves: trackers and VCA requests
   * resumed at open may emit (even reach done) while the stored roots are still starting, and a
   * listener added with `on` after open() would miss those.
   */
  onEvent?: (e: AppEvent) => void;
}
