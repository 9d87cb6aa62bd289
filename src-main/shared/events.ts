import type { ErrorCode } from './errors';
import type { TransferSnapshot } from './models';
import type { FmgrTaskView, VcaJobView } from './task-views';

/**
 * The app core's one event stream (service/app-core.ts `core.on`), as the UI sees it.
 * Types only; plain data that crosses IPC and WebSocket as JSON. No event carries a secret.
 */

/** Progress of a running transfer; the engine sends at most ~10 a second per transfer. */
export interface TransferProgress {
  id: number;
  bytesDone: number;
  size: number;
  /** Bytes per second, moving average. */
  speed: number;
  etaSeconds: number | null;
}

/** What a reconciliation scan of a watch root found (also the dry-run plan's counts). */
export interface WatchScanCounts {
  newFiles: number;
  newBytes: number;
  changedFiles: number;
  changedBytes: number;
  unchangedFiles: number;
  unchangedBytes: number;
  retryFiles: number;
  retryBytes: number;
  inFlightFiles: number;
  ignoredFiles: number;
  ignoredBytes: number;
  /** Files whose key the service cannot take (see `rejected`). */
  rejectedFiles: number;
  /** New files recognised as renames of uploaded ones (no upload when allowed). */
  renamedFiles: number;
  /** Index rows whose file is gone. */
  missingFiles: number;
  /** Files still changing: they wait for the stability window. */
  waitingFiles: number;
  /** What the walk could not read or follow; `message` is the catalog's English, `params` its values. */
  problems: Array<{ relPath: string; code: ErrorCode; message: string; params: Record<string, string | number> }>;
  rejected: Array<{ relPath: string; code: string; message: string }>;
}

export type WatchFileOutcome = 'uploaded' | 'failed' | 'skipped' | 'canceled' | 'moved' | 'copied' | 'deleted';
/**
 * starting: first scan running; watching: live; paused: by the user; unavailable: the folder
 * is gone or unreadable (reason says which), retried until it returns; closed.
 */
export type WatchRootState = 'starting' | 'watching' | 'paused' | 'unavailable' | 'closed';

/** What a watch root reports (sync/ emits exactly these). */
export type WatchEvent =
  | { type: 'scan-started'; rootId: number }
  | { type: 'scan-finished'; rootId: number; counts: WatchScanCounts; durationMs: number }
  | { type: 'queued'; rootId: number; files: Array<{ relPath: string; key: string; size: number; transferId: number }> }
  | {
      type: 'file-done';
      rootId: number;
      relPath: string;
      key: string;
      etag: string | null;
      size: number;
      status: WatchFileOutcome;
      /** The file this one was renamed from (status moved/copied). */
      from?: string;
      error?: { code: string; message: string };
      /** An uploaded video of a root with "VCA for videos" on: the service creates the job. */
      vcaRequested?: boolean;
    }
  | { type: 'rejected'; rootId: number; relPath: string; code: string; message: string }
  | {
      type: 'problem';
      rootId: number;
      relPath: string;
      /** A code of the error catalog (shared/errors.ts); `message` is its English template filled with `params`. */
      code: ErrorCode;
      message: string;
      params: Record<string, string | number>;
    }
  | {
      type: 'state';
      rootId: number;
      state: WatchRootState;
      /** Why it is paused or unavailable, in English (the CLI and the log); null otherwise. */
      reason: string | null;
      /** The same as a code of the error catalog with its template's params, for a UI to translate; null with `reason`. */
      reasonCode: ErrorCode | null;
      reasonParams: Record<string, string | number> | null;
    };

/**
 * Something the core did on its own that did not work (a VCA job it could not create for
 * an uploaded video, an upload's Fmgr task it could not follow): shown to the user.
 */
export interface CoreProblem {
  code: string;
  message: string;
  /** What it was about, for the UI to link to. */
  transferId?: number;
  rootId?: number;
  key?: string;
  /** The values of the code's message template (shared/errors.ts), for a UI to translate it. */
  params?: Record<string, string | number>;
}

export type AppEvent =
  | { type: 'transfer-changed'; transfer: TransferSnapshot }
  | { type: 'transfer-progress'; progress: TransferProgress }
  | { type: 'watch'; event: WatchEvent }
  | { type: 'fmgr-task-changed'; task: FmgrTaskView }
  | { type: 'vca-job-changed'; job: VcaJobView }
  | { type: 'problem'; problem: CoreProblem };

export type AppEventType = AppEvent['type'];
