import type { WatchScanCounts } from '../shared/events';
import type { SyncFileRecord } from '../store/sync-repo';
import type { TransferState } from '../shared/models';
import type { ScanProblem, ScannedFile } from './scanner';

/**
 * How a file found on disk relates to its index row. Pure; shared by the dry-run plan and
 * the live watch root so both say the same thing.
 *
 *   new        no row: upload (or a server-side rename if it matches a missing row by etag)
 *   changed    size or mtime differ from the content the row refers to: upload again
 *   unchanged  the row's content is uploaded (or was deliberately skipped): nothing to do
 *   retry      the last upload of this content failed: upload again
 *   in-flight  a transfer of it is queued or running: wait for it
 *   rejected   its key cannot be used; checked again (options may have changed)
 */
export type FileClass = 'new' | 'changed' | 'unchanged' | 'retry' | 'in-flight' | 'rejected';

export function sameContent(
  row: Pick<SyncFileRecord, 'size' | 'mtimeMs'>,
  f: Pick<ScannedFile, 'size' | 'mtimeMs'>,
): boolean {
  return row.size === f.size && row.mtimeMs === f.mtimeMs;
}

/**
 * `transferState` is the queue's state of row.transferId (undefined when the queue does
 * not know it, e.g. another database). A row in `queued` whose transfer ended is judged
 * by how it ended.
 */
export function classifyFile(
  row: SyncFileRecord | undefined,
  f: ScannedFile,
  transferState?: TransferState | 'unknown',
): FileClass {
  if (!row) return 'new';
  switch (row.state) {
    case 'missing':
      return row.etag !== null && sameContent(row, f) ? 'unchanged' : 'changed';
    case 'rejected':
      return 'rejected';
    case 'queued': {
      if (row.transferId === null || transferState === 'unknown') return sameContent(row, f) ? 'retry' : 'changed';
      if (transferState === undefined || !['done', 'failed', 'canceled', 'skipped'].includes(transferState))
        return 'in-flight';
      if (!sameContent(row, f)) return 'changed';
      return transferState === 'failed' ? 'retry' : 'unchanged';
    }
    case 'failed':
      return sameContent(row, f) ? 'retry' : 'changed';
    case 'uploaded':
    case 'skipped':
      return sameContent(row, f) ? 'unchanged' : 'changed';
  }
}

/** What a scan found (the dry-run plan and the result of a reconciliation); fields in shared/events.ts. */
export interface ScanCounts extends Omit<WatchScanCounts, 'problems'> {
  problems: ScanProblem[];
}

export function emptyCounts(): ScanCounts {
  return {
    newFiles: 0,
    newBytes: 0,
    changedFiles: 0,
    changedBytes: 0,
    unchangedFiles: 0,
    unchangedBytes: 0,
    retryFiles: 0,
    retryBytes: 0,
    inFlightFiles: 0,
    ignoredFiles: 0,
    ignoredBytes: 0,
    rejectedFiles: 0,
    renamedFiles: 0,
    missingFiles: 0,
    waitingFiles: 0,
    problems: [],
    rejected: [],
  };
}

/** Bytes a plan would upload. */
export function bytesToUpload(c: ScanCounts): number {
  return c.newBytes + c.changedBytes + c.retryBytes;
}
