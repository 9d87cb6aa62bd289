/**
 * State names of the interface document's code tables. Values the document leaves open
 * read "undefined code N" rather than being guessed.
 */
const FMGR_TASK_CODES: Record<number, string> = {
  0: 'pending',
  1: 'processing',
  3: 'processing finished',
  4: 'notifying',
  5: 'notification failed',
  6: 'notification succeeded',
};

const FMGR_NOTIFICATION_CODES: Record<number, string> = {
  1: 'separate notification, some tasks still processing',
  2: 'separate notification, some tasks failed',
  3: 'notification succeeded',
};

const FMGR_ITEM_CODES: Record<number, string> = {
  0: 'pending',
  1: 'processing',
  2: 'processing failed',
  3: 'processing succeeded',
  4: 'success, notifying',
  5: 'success, notification failed',
  6: 'success, notification succeeded',
  18: 'failure, notifying',
  19: 'failure, notification failed',
  20: 'failure, notification succeeded',
};

const VCA_JOB_CODES: Record<number, string> = { 1: 'analysing', 2: 'analysis failed', 3: 'analysis succeeded' };
const VCA_NOTIFY_RESULTS: Record<number, string> = {
  0: 'not notified',
  1: 'notifying',
  2: 'notification failed',
  3: 'notification succeeded',
};

function name(table: Record<number, string>, code: number | string): string {
  const n = typeof code === 'string' ? Number(code) : code;
  return (Number.isInteger(n) ? table[n] : undefined) ?? `undefined code ${String(code)}`;
}

export const fmgrTaskState = (code: number | string) => name(FMGR_TASK_CODES, code);
export const fmgrNotificationState = (code: number | string) => name(FMGR_NOTIFICATION_CODES, code);
export const fmgrItemState = (code: number | string) => name(FMGR_ITEM_CODES, code);
export const vcaJobState = (code: number | string) => name(VCA_JOB_CODES, code);
export const vcaNotifyState = (code: number | string) => name(VCA_NOTIFY_RESULTS, code);

/** Top-level task codes after which the status no longer changes. */
export const FMGR_TERMINAL_TASK_CODES: ReadonlySet<number> = new Set([3, 5, 6]);
/** Item codes that mean processing is over (success or failure). */
export const FMGR_DONE_ITEM_CODES: ReadonlySet<number> = new Set([2, 3, 4, 5, 6, 18, 19, 20]);
