import type { ScanCounts } from './reconcile';

/**
 * What a watch root tells its listeners (the CLI prints them, the service forwards them to
 * the UI). Plain data, no secrets.
 */
export type FileOutcome = 'uploaded' | 'failed' | 'skipped' | 'canceled' | 'moved' | 'copied' | 'deleted';

export type WatchRootEvent =
  | { type: 'scan-started'; rootId: number }
  | { type: 'scan-finished'; rootId: number; counts: ScanCounts; durationMs: number }
  | { type: 'queued'; rootId: number; files: Array<{ relPath: string; key: string; size: number; transferId: number }> }
  | {
      type: 'file-done';
      rootId: number;
      relPath: string;
      key: string;
      etag: string | null;
      size: number;
      status: FileOutcome;
      /** The file this one was renamed from (status moved/copied). */
      from?: string;
      error?: { code: string; message: string };
      /** An uploaded video of a root with "VCA for videos" on: the tasks layer creates the job. */
      vcaRequested?: boolean;
    }
  | { type: 'rejected'; rootId: number; relPath: string; code: string; message: string }
  | { type: 'problem'; rootId: number; relPath: string; code: string; message: string }
  | { type: 'state'; rootId: number; state: WatchRootState; reason: string | null };

/**
 * starting: first scan running; watching: live; paused: by the user; unavailable: the folder
 * is gone or unreadable (reason says which), retried until it returns; closed.
 */
export type WatchRootState = 'starting' | 'watching' | 'paused' | 'unavailable' | 'closed';
