import type { TransferSnapshot } from '../shared/models';
import type { SyncFileRecord } from '../store/sync-repo';
import type { FileOutcome } from './events';
import type { FileClass, ScanCounts } from './reconcile';

/** A file as the index sees it: where it is in the root, its size and mtime. */
interface FileSeen {
  relPath: string;
  size: number;
  mtimeMs: number;
}

/** The fields every row starts from: nothing uploaded, no transfer, no error, not missing. */
function blankRow(f: FileSeen): SyncFileRecord {
  return {
    relPath: f.relPath,
    size: f.size,
    mtimeMs: f.mtimeMs,
    etag: null,
    remoteKey: null,
    state: 'queued',
    transferId: null,
    errorCode: null,
    errorMessage: null,
    missingSince: null,
  };
}

/** The row of a file about to be queued (its transfer id is recorded in the same transaction). */
export function queuedRow(f: FileSeen): SyncFileRecord {
  return blankRow(f);
}

/** The row of a file whose key cannot be used. */
export function rejectedRow(f: FileSeen, why: { code: string; message: string }): SyncFileRecord {
  return { ...blankRow(f), state: 'rejected', errorCode: why.code, errorMessage: why.message };
}

/** The row of a file whose object is on the service already (a rename copied or moved there). */
export function uploadedRow(f: FileSeen, etag: string, remoteKey: string): SyncFileRecord {
  return { ...blankRow(f), state: 'uploaded', etag, remoteKey };
}

/**
 * The row of an unchanged file that was missing or queued, as it stands now: skipped when
 * its transfer was skipped or canceled, else uploaded (`done` is its transfer, if any).
 */
export function settledRow(row: SyncFileRecord, done: TransferSnapshot | undefined): SyncFileRecord {
  return {
    ...row,
    state: done?.state === 'skipped' || done?.state === 'canceled' ? 'skipped' : 'uploaded',
    etag: done?.etag ?? row.etag,
    remoteKey: done?.key ?? row.remoteKey,
    missingSince: null,
  };
}

/** How a queued row's transfer ended: the row to record and the outcome to report. */
export function transferOutcome(f: SyncFileRecord, t: TransferSnapshot): { row: SyncFileRecord; status: FileOutcome } {
  if (t.state === 'done')
    // t.size: the bytes the upload sent (a file rewritten during its upload is sent as rewritten)
    return {
      row: {
        ...f,
        size: t.size,
        state: 'uploaded',
        etag: t.etag,
        remoteKey: t.key,
        errorCode: null,
        errorMessage: null,
      },
      status: 'uploaded',
    };
  if (t.state === 'failed')
    return {
      row: {
        ...f,
        state: 'failed',
        errorCode: t.lastError?.code ?? 'failed',
        errorMessage: t.lastError?.message ?? 'upload failed',
      },
      status: 'failed',
    };
  return {
    row: { ...f, state: 'skipped', remoteKey: t.key, errorCode: t.state, errorMessage: t.warning },
    status: t.state === 'canceled' ? 'canceled' : 'skipped',
  };
}

/** Counts a file about to be queued under what it is: new (or rejected before), changed, or a retry. */
export function countToUpload(counts: ScanCounts, cls: FileClass, bytes: number): void {
  if (cls === 'new' || cls === 'rejected') {
    counts.newFiles++;
    counts.newBytes += bytes;
  } else if (cls === 'changed') {
    counts.changedFiles++;
    counts.changedBytes += bytes;
  } else {
    counts.retryFiles++;
    counts.retryBytes += bytes;
  }
}
