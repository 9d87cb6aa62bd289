import { FMGR_TERMINAL_TASK_CODES, fmgrItemState, fmgrNotificationState, fmgrTaskState } from '../protocol/codes';
import type { FmgrTaskStatus } from '../protocol/types';
import type { FmgrItemRow, FmgrTaskRow, StatusSource } from '../store/tasks/fmgr-repo';

/** The view types live in shared/ (the renderer uses them); built here from store rows. */
import type { FmgrItemView, FmgrTaskView } from '../shared/task-views';
export type { FmgrItemView, FmgrTaskView };

export function fmgrStateName(code: number, source: StatusSource): string {
  return source === 'notify' ? fmgrNotificationState(code) : fmgrTaskState(code);
}

export function fmgrTaskView(t: FmgrTaskRow, items: readonly FmgrItemRow[]): FmgrTaskView {
  return {
    id: t.id,
    accountId: t.accountId,
    persistentId: t.persistentId,
    origin: t.origin,
    op: t.op,
    fops: t.fops,
    notifyUrl: t.notifyUrl,
    tracking: t.tracking,
    code: t.code,
    codeSource: t.codeSource,
    state: t.code === null ? null : fmgrStateName(t.code, t.codeSource ?? 'poll'),
    description: t.description,
    separate: t.separate,
    forTransfer: t.forTransfer,
    items: items.map((it) => ({ ...it, state: fmgrItemState(it.code) })),
    error: t.errorCode === null ? null : { code: t.errorCode, message: t.errorMessage ?? '', at: t.errorAt ?? 0 },
    polls: t.polls,
    nextPollAt: t.nextPollAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    finishedAt: t.finishedAt,
  };
}

/**
 * A status query answer after which the task no longer changes. With a notify URL that we
 * gave (push), only 5 and 6 (notification failed / succeeded) end it: the service passes
 * through 3 on its way to 4 (notifying). Without one, 3 (processing finished) ends it too.
 * Code 4 is never terminal. A task typed in by id whose submitter set a notify URL we do
 * not know of ends at 3: its results are final by then.
 */
export function isFmgrTerminal(status: Pick<FmgrTaskStatus, 'code'>, push = false): boolean {
  return push ? status.code === 5 || status.code === 6 : FMGR_TERMINAL_TASK_CODES.has(status.code);
}
