/**
 * What a VCA job or an Fmgr task came to, read from the service's codes (docs/protocol.md),
 * not only from whether the app still follows it: a task or job the app stopped following
 * because it ended may have ended in failure. Pure, so the screens and the tests share it.
 */
import {
  FMGR_FAILED_ITEM_CODES,
  VCA_CODE,
  type FmgrItemView,
  type FmgrTaskView,
  type VcaJobView,
} from '../../src-main/shared/task-views';

export type VcaPhase = 'analysing' | 'failed' | 'done';

export function jobPhase(job: VcaJobView): VcaPhase {
  if (job.code === VCA_CODE.failed) return 'failed';
  if (job.tracking === 'failed' || job.tracking === 'lost' || (job.error && job.tracking !== 'active')) return 'failed';
  return job.tracking === 'active' ? 'analysing' : 'done';
}

/** Why a failed job failed, in the service's or the app's words; null when it did not fail or nobody said. */
export function jobFailure(job: VcaJobView): string | null {
  if (jobPhase(job) !== 'failed') return null;
  if (job.code === VCA_CODE.failed) return job.description || job.state || job.error?.message || null;
  return job.error?.message ?? job.description ?? null;
}

/** The top-level code of a notification body: 2 means some operations failed. */
const NOTIFY_SOME_FAILED = 2;

export const itemFailed = (item: FmgrItemView): boolean => FMGR_FAILED_ITEM_CODES.has(Number(item.code));

export function failedItems(task: FmgrTaskView): FmgrItemView[] {
  return task.items.filter(itemFailed);
}

/**
 * How a task is shown: while it is followed, 'active'; once ended, 'failed' when every item
 * failed (or the notification said some failed and no item is known), 'partial' when some
 * did, else what its tracking says ('done', 'lost', 'failed', 'stopped'). The task code
 * (e.g. 6 "notification succeeded") says only that processing and its notification ended.
 */
export type TaskOutcome = FmgrTaskView['tracking'] | 'partial';

export function taskOutcome(task: FmgrTaskView): TaskOutcome {
  if (task.tracking === 'active') return 'active';
  const failed = failedItems(task).length;
  if (failed > 0) return failed === task.items.length ? 'failed' : 'partial';
  if (task.items.length === 0 && task.codeSource === 'notify' && task.code === NOTIFY_SOME_FAILED) return 'failed';
  return task.tracking;
}
