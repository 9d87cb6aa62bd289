import type { ProgressEvent } from '../../engine/api';
import { RUNNING_STATES } from '../../engine/snapshot';
import type { AccountView, BlockView, TransferDetail, TransferView, WatchRootView } from '../../shared/contract';
import type { AccountRecord } from '../../store/account-repo';
import type { WatchRootRecord } from '../../store/sync-repo';
import type { BlockRow, TransferListRow } from '../../store/transfer-query';
import type { WatchRoot } from '../../sync/watch-root';
import { normalizeWatchOptions } from '../../sync/options';
import { persistentIdOfUpload } from '../../tasks/upload-link';
import type { SyncRepo } from '../../store/sync-repo';
import type { AccountPrefs } from '../account-prefs';
import { publicAccount } from '../account-public';
import { droppedAs, namedAsDropped } from '../data-dir';

/**
 * A stored transfer as a list row shows it; `live` is the engine's progress while it runs. A
 * file staged in `stagingDir` (dropped in a browser) is named by its path as dropped, and its
 * failure names it so too (`namedAsDropped`), since this view is what every reader of the
 * message gets: the list, the detail, the events (and the desktop notification made from
 * them), the CLI.
 */
export function transferView(row: TransferListRow, live: ProgressEvent | undefined, stagingDir?: string): TransferView {
  const r = row.record;
  const running = RUNNING_STATES.includes(r.state) && live !== undefined;
  const dropped = droppedAs(stagingDir, r.localPath);
  return {
    id: r.id,
    accountId: r.accountId,
    bucket: r.bucket,
    key: r.key,
    localPath: r.localPath,
    size: r.size,
    state: r.state,
    source: r.source,
    bytesDone: running ? live.bytesDone : row.committedBytes,
    speed: running ? live.speed : 0,
    etaSeconds: running ? live.etaSeconds : null,
    etag: r.etag,
    lastError: r.lastError && { ...r.lastError, message: namedAsDropped(r.lastError.message, r.localPath, dropped) },
    warning: r.warning,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    rootId: row.rootId,
    pausedBy: row.pausedBy,
    attempts: r.attempts,
    verified: r.state === 'done' && r.remoteHash !== null && r.remoteHash === r.etag,
    remoteHash: r.remoteHash,
    persistentId: (r.returnBody && persistentIdOfUpload(r.returnBody)) ?? null,
    copiedFrom: r.copiedFrom,
    ...(dropped !== undefined ? { droppedAs: dropped } : {}),
  };
}

/** Blocks of a transfer: stored rows while unfinished; all done (restarts no longer known) once done. */
export function blockViews(view: TransferView, rows: readonly BlockRow[], blockSize: number): BlockView[] {
  if (view.state === 'done') {
    const out: BlockView[] = [];
    for (let i = 0, left = view.size; left > 0 || (i === 0 && view.size === 0); i++, left -= blockSize) {
      const size = Math.min(blockSize, left);
      out.push({ index: i, size, bytesDone: size, state: 'done', restarts: 0 });
      if (view.size === 0) break;
    }
    return out;
  }
  const running = RUNNING_STATES.includes(view.state);
  return rows.map((b) => ({
    index: b.index,
    size: b.size,
    bytesDone: b.nextOffset,
    state: b.nextOffset >= b.size ? 'done' : running && b.nextOffset > 0 ? 'in-flight' : 'waiting',
    restarts: b.restarts,
  }));
}

export function etagCheck(view: TransferView): TransferDetail['etagCheck'] {
  if (view.state !== 'done') return 'pending';
  if (view.remoteHash === null) return 'not-returned';
  return view.remoteHash === view.etag ? 'matched' : 'mismatched';
}

/**
 * An account as screens see it: what `publicAccount` lets out (no secret, nor where it is
 * kept, no credentials or query of the token URL, no proxy password), and its roles.
 */
export function accountView(
  a: AccountRecord,
  prefs: AccountPrefs,
  localAccountId: number | undefined,
  defaultId: number | undefined,
  sessionEnded = false,
): AccountView {
  return {
    ...publicAccount(a, prefs.proxyOf(a.id), sessionEnded),
    isLocal: a.id === localAccountId,
    isDefault: a.id === defaultId,
  };
}

const MAX_REJECTED = 100;

/** A watch root as screens see it: the stored row, the live root's state, counts of its index. */
/** What the service saw of a root's scans: one running now (files queued so far), the last one's ignored count. */
export interface RootScanInfo {
  running: { files: number } | null;
  ignoredFiles: number;
}

/** Why the root is paused or unavailable: the live root's reason, else the one stored with the row. */
function reasonOf(
  live: WatchRoot | undefined,
  rec: WatchRootRecord,
): Pick<WatchRootView, 'reason' | 'reasonCode' | 'reasonParams'> {
  const why = live?.stateReason;
  if (why) return { reason: why.message, reasonCode: why.code, reasonParams: why.params };
  return { reason: rec.unavailableReason, reasonCode: rec.unavailableCode, reasonParams: rec.unavailableParams };
}

export function rootView(
  rec: WatchRootRecord,
  live: WatchRoot | undefined,
  repo: SyncRepo,
  scan: RootScanInfo | undefined,
): WatchRootView {
  // Counted by SQL: a root may index 100,000 files, and this view is built up to 10 times a second.
  const byState = repo.countByState(rec.id);
  const indexed = Object.values(byState).reduce((a, b) => a + b, 0);
  const rejected: WatchRootView['rejected'] = repo
    .filesInState(rec.id, 'rejected', MAX_REJECTED)
    .map((f) => ({ relPath: f.relPath, code: f.errorCode ?? '', message: f.errorMessage ?? '' }));
  let options: WatchRootView['options'];
  try {
    options = normalizeWatchOptions(rec.options);
  } catch {
    options = rec.options as WatchRootView['options'];
  }
  const state = live?.state ?? (rec.paused ? 'paused' : rec.unavailableReason ? 'unavailable' : 'closed');
  return {
    id: rec.id,
    path: rec.path,
    accountId: rec.accountId,
    bucket: rec.bucket,
    prefix: rec.prefix,
    options,
    state,
    ...reasonOf(live, rec),
    pausedBy: state === 'paused' ? 'user' : null,
    counts: {
      indexed,
      waiting: live?.waitingFiles ?? 0,
      uploaded: byState.uploaded,
      ignored: scan?.ignoredFiles ?? 0,
      rejected: byState.rejected,
      failed: byState.failed,
      inFlight: byState.queued,
    },
    scanning: scan?.running ?? null,
    rejected,
    lastScanAt: rec.lastScanAt,
  };
}
