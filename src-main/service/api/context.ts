import type { AppEvents, FolderChoice } from '../../shared/contract';
import type { EventCoalescer } from '../event-coalescer';
import type { UseCases } from '../use-cases';

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

/**
 * What every area of the service works with (service-internal; never handed to a door): the
 * use cases (use-cases/), never the core, and what belongs to the service itself (the event
 * batching, the door's abilities, the events that are not batched).
 */
export interface ServiceContext extends Omit<UseCases, 'eventLog'> {
  coalescer: EventCoalescer;
  door: DoorCapabilities;
  /** Sends an event that is not batched (settings, accounts, batchFinished). */
  emit<N extends 'settings' | 'accounts' | 'batchFinished'>(name: N, payload: AppEvents[N]): void;
  /** Registers transfers added together, for the batchFinished event. */
  trackBatch(ids: readonly number[]): void;
}
