/** The tasks layer's public surface (design.md "tasks/"): Fmgr and VCA follow-up, review, notifications. */
export { FmgrTracker } from './fmgr-tracker';
export { VcaTracker, type CreateVcaJob } from './vca-tracker';
export { createNotificationHandler, type NotificationReceiverOptions } from './notify-receiver';
export { NOTIFY_FMGR_PATH, NOTIFY_VCA_PATH, notifyUrl, type MgrAccount, type TrackerDeps } from './deps';
export { fmgrTaskView, isFmgrTerminal, type FmgrTaskView, type FmgrItemView } from './fmgr-view';
export { vcaJobView, isVcaTerminal, type VcaJobView, type VcaLabelView } from './vca-view';
export { DEFAULT_POLL_POLICY, nextPollDelayMs, shouldGiveUpNotFound, type PollPolicy } from './poll-policy';
export { classifyPollError, type PollFailure } from './poll-errors';
export { explainVcaError, explainServiceFailure, VCA_ERROR_ROWS, type VcaErrorCode } from './vca-errors';
export { TaskError } from './task-error';
export { acceptedRows, effectiveDecision, reviewSummary, type ExportRow, type EffectiveDecision } from './review';
export { exportCsv, exportJson, EXPORT_COLUMNS } from './vca-export';
export { toCsv } from './csv';
export { isVideo, parseExtensionList, DEFAULT_VIDEO_EXTENSIONS } from './video-detect';
export { objectAccessUrl, AccessUrlError } from './access-url';
export { persistentIdOfUpload } from './upload-link';
