import type { ProgressEvent } from '../../engine/api';
import type { AppEvents, FolderChoice } from '../../shared/contract';
import type { AccountPrefs } from '../account-prefs';
import type { AppCore } from '../app-core';
import type { EventCoalescer } from '../event-coalescer';
import type { RootScanInfo } from './views';

/** Abilities only a door has (the Electron door passes them; elsewhere they are missing). */
export interface DoorCapabilities {
  /** Which door the service answers through. */
  door?: 'electron' | 'headless' | 'in-process';
  /** Opens a folder in the system's file manager. */
  openFolder?: (folder: string) => Promise<void>;
  /**
   * Lets the person choose a folder (`app.chooseFolder`): the system's dialog starting at
   * `start` (desktop), or the listing of `start` to browse (headless). A refusal throws an
   * AppServiceError.
   */
  chooseFolder?: (start: string | undefined) => Promise<FolderChoice>;
  /** Brings the app's window to the front, uploading the paths handed with it (`app.show`). */
  showWindow?: (paths: string[]) => Promise<void>;
}

/** What every area of the service works with (service-internal; never handed to a door). */
export interface ServiceContext {
  core: AppCore;
  coalescer: EventCoalescer;
  prefs: AccountPrefs;
  /** What the service saw of each root's scans (from the watch events). */
  scans: Map<number, RootScanInfo>;
  /** The engine's latest progress of each running transfer. */
  live: Map<number, ProgressEvent>;
  door: DoorCapabilities;
  /** The account a verb acts on: the given one, else the default, else the Local one; throws 'no-account'. */
  accountId(given: number | undefined): number;
  /** Sends an event that is not batched (settings, accounts, batchFinished). */
  emit<N extends 'settings' | 'accounts' | 'batchFinished'>(name: N, payload: AppEvents[N]): void;
  /** Registers transfers added together, for the batchFinished event. */
  trackBatch(ids: readonly number[]): void;
}
