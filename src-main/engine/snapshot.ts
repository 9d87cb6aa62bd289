import type { TransferSnapshot, TransferState } from '../shared/models';
import type { TransferRecord } from './ports';
import type { ProgressTracker } from './progress';

/** States in which a transfer has a run in the engine. */
export const RUNNING_STATES: readonly TransferState[] = ['hashing', 'uploading', 'completing'];

/**
 * A transfer as listeners see it. `tracker` is the live progress of a running transfer;
 * `committedBytes` is what the store says was acknowledged, for one that is not running.
 */
export function toSnapshot(
  rec: TransferRecord,
  tracker: ProgressTracker | undefined,
  committedBytes: () => number,
  nowMs: number,
): TransferSnapshot {
  const live = tracker !== undefined && RUNNING_STATES.includes(rec.state);
  return {
    id: rec.id,
    accountId: rec.accountId,
    bucket: rec.bucket,
    key: rec.key,
    localPath: rec.localPath,
    size: rec.size,
    state: rec.state,
    source: rec.source,
    bytesDone: rec.state === 'done' ? rec.size : (tracker?.bytesDone ?? committedBytes()),
    speed: live ? tracker.speed(nowMs) : 0,
    etaSeconds: live ? tracker.etaSeconds(nowMs) : null,
    etag: rec.etag,
    lastError: rec.lastError,
    warning: rec.warning,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
  };
}
