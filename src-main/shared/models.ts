/**
 * Models shared by the main process and the renderer. Types and constants only; the types
 * of what a front end sends are derived from their schemas (schemas.ts).
 */
import type { z } from 'zod';
import type { CONFLICT_POLICY, TRANSFER_OPTIONS } from './schemas';

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

export type TransferState =
  'queued' | 'hashing' | 'uploading' | 'paused' | 'completing' | 'done' | 'failed' | 'canceled' | 'skipped';

/** Every state, in the order a list shows them. */
export const TRANSFER_STATES: readonly TransferState[] = [
  'queued',
  'hashing',
  'uploading',
  'paused',
  'completing',
  'done',
  'failed',
  'canceled',
  'skipped',
];

export const TERMINAL_TRANSFER_STATES: readonly TransferState[] = ['done', 'failed', 'canceled', 'skipped'];
/**
 * States after which the copy the door staged of a file dropped in a browser is deleted (a
 * failed transfer keeps it for a retry).
 */
export const STAGED_COPY_DELETED_STATES: readonly TransferState[] = ['done', 'canceled', 'skipped'];

export type TransferSource = 'watch' | 'manual' | 'cli';

/** How a watched folder is watched: chokidar (a watch per file) or @parcel/watcher (native, per folder). */
export const WATCHER_BACKENDS = ['chokidar', 'parcel'] as const;
export type WatcherBackend = (typeof WATCHER_BACKENDS)[number];

/** What to do when the key already exists (a 406 from mkfile). */
export type ConflictPolicy = z.output<typeof CONFLICT_POLICY>;

/** Mime type, retention, custom variables and conflict policy of an upload. */
export type TransferOptions = z.output<typeof TRANSFER_OPTIONS>;

/** What a caller (CLI, sync, UI) asks the queue to upload. */
export interface TransferRequest {
  accountId: number;
  bucket: string;
  key: string;
  localPath: string;
  source: TransferSource;
  options?: TransferOptions;
  /** Higher runs first; default 0. */
  priority?: number;
  /** Block size in bytes, a multiple of 4 MiB; default 4 MiB. */
  blockSize?: number;
  /**
   * The file's size when it was queued (the caller's stat or scan), shown while it waits;
   * its upload reads the size again and that one counts. Default 0 (not known).
   */
  size?: number;
}

/** A transfer as the UI and events see it (no secrets). */
export interface TransferSnapshot {
  id: number;
  accountId: number;
  bucket: string;
  key: string;
  localPath: string;
  size: number;
  state: TransferState;
  source: TransferSource;
  bytesDone: number;
  /** Bytes per second, moving average; 0 when idle. */
  speed: number;
  /** Seconds left at the current speed, or null when unknown. */
  etaSeconds: number | null;
  etag: string | null;
  lastError: { code: string; message: string } | null;
  warning: string | null;
  createdAt: number;
  updatedAt: number;
}
