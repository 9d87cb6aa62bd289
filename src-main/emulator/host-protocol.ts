import type { LogFields, LogLevel } from '../base/logger';
import type { SweepResult } from './admin';
import type { EmulatorConfig, PutMeta, StoredObject } from './contracts';
import type { FaultConfig, FaultEvent } from './faults';
import type { StartEmulatorOptions } from './server';
import type { UploadCounts } from './upload-counts';

/**
 * The messages between an emulator host (host.ts, on the app's thread) and the emulator it
 * runs in a worker thread or a child process (host-entry.ts). Structured-clone values only.
 */

/** What the host may pass to the emulator: the start options less what cannot cross (a logger, a clock). */
export type HostedEmulatorOptions = Omit<StartEmulatorOptions, 'logger' | 'clock'>;

/** The calls the host forwards, their inputs and replies. */
export interface HostCalls {
  stat: { args: [bucket: string, key: string]; value: StoredObject | undefined };
  putBuffer: { args: [bucket: string, key: string, data: Uint8Array, meta: PutMeta]; value: StoredObject };
  setFaults: { args: [cfg: FaultConfig]; value: void };
  faultEvents: { args: []; value: FaultEvent[] };
  uploadCounts: { args: []; value: UploadCounts };
  blockCount: { args: []; value: number };
  sweepNow: { args: []; value: SweepResult };
  /** The id of the thread and the pid that serve requests (tests: the app's thread does not). */
  where: { args: []; value: { threadId: number; pid: number; priority: number } };
}
export type HostCallName = keyof HostCalls;

/** Host → emulator. */
export type ToEmulator =
  | { t: 'start'; options: HostedEmulatorOptions }
  | { t: 'call'; id: number; name: HostCallName; args: unknown[] }
  | { t: 'close' };

/** What the emulator tells the host once it listens. */
export interface HostedFacts {
  port: number;
  adminToken: string;
  dataDir: string;
  config: EmulatorConfig;
}

/** Emulator → host. */
export type FromEmulator =
  | { t: 'ready'; facts: HostedFacts }
  | { t: 'start-failed'; message: string; name: string }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; message: string }
  | { t: 'log'; level: LogLevel; message: string; fields?: LogFields }
  | { t: 'closed' };
