/**
 * Fmgr tasks and VCA jobs as the UI, the CLI and events see them (plain types, imported by
 * the renderer too). tasks/fmgr-view.ts and tasks/vca-view.ts build them from store rows.
 */
import type { z } from 'zod';
import type { TASK_TRACKING, VCA_LABEL_DECISION } from './schemas';

/** Whether the app still follows a task: active (polling or waiting for a push) or why it stopped. */
export type TaskTracking = z.output<typeof TASK_TRACKING>;
export type FmgrTaskOrigin = 'typed' | 'submitted' | 'upload' | 'notification';
/** Which table names a status code: a query answer (poll) or a notification (notify). */
export type FmgrStatusSource = 'poll' | 'notify';
export type VcaJobOrigin = 'created' | 'typed' | 'watch' | 'transfer' | 'notification';
/** The six label types the service documents (protocol/types.ts uses them for the service's replies). */
export const VCA_TYPES = ['scenario', 'entity', 'keyword', 'location', 'figure', 'logo'] as const;
/** The six documented types, or a name the service sent that the spec does not list: the UI shows it raw. */
export type VcaLabelType = (typeof VCA_TYPES)[number] | (string & {});
export type VcaLabelDecision = z.output<typeof VCA_LABEL_DECISION>;
export type VcaEffectiveDecision = 'accepted' | 'corrected' | 'rejected' | 'above-threshold' | 'below-threshold';

/** VCA job `code`: 1 analysing, 2 failed (its `desc` says why), 3 succeeded. */
export const VCA_CODE = { analysing: 1, failed: 2, succeeded: 3 } as const;

/** Fmgr item codes that mean the item's operation failed: 2, and 18–20 (failed, then notifying / notification failed / succeeded). */
export const FMGR_FAILED_ITEM_CODES: ReadonlySet<number> = new Set([2, 18, 19, 20]);

export interface FmgrItemView {
  index: number;
  cmd: string;
  code: number;
  state: string;
  description: string;
  error: string | null;
  hash: string | null;
  fsize: number | null;
  key: string | null;
  url: string | null;
  decompresslist: string | null;
}

/**
 * The transfer an Fmgr task was submitted for by the upload engine (issue 19: the copy on the
 * service of a file whose bytes were stored already, op `copy`; or the removal of a copy that
 * turned out not to be the file, op `delete`), and the key the operation wrote or removed.
 */
export interface FmgrTaskFor {
  transferId: number;
  key: string;
}

export interface FmgrTaskView {
  id: number;
  accountId: number;
  persistentId: string;
  origin: FmgrTaskOrigin;
  op: string | null;
  fops: string | null;
  notifyUrl: string | null;
  tracking: TaskTracking;
  /** Latest service code, and which table names it (query or notification). */
  code: number | null;
  codeSource: FmgrStatusSource | null;
  state: string | null;
  description: string | null;
  separate: string | null;
  /** Set when the upload engine submitted it for a transfer (the Tasks screen labels it so); null for every other task. */
  forTransfer: FmgrTaskFor | null;
  items: FmgrItemView[];
  /** The last poll's failure, shown until a status arrives. */
  error: { code: string; message: string; at: number } | null;
  polls: number;
  nextPollAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface VcaLabelView {
  id: number;
  attribute: string;
  confidence: number;
  decision: VcaLabelDecision;
  correctedText: string | null;
  effective: VcaEffectiveDecision;
}

export interface VcaJobView {
  id: number;
  accountId: number;
  jobId: string;
  bucket: string | null;
  sourceUrl: string | null;
  origin: VcaJobOrigin;
  transferId: number | null;
  notifyUrl: string | null;
  tracking: TaskTracking;
  code: number | null;
  state: string | null;
  description: string | null;
  notifyResult: number | null;
  notifyState: string | null;
  minConfidence: number;
  results: { type: VcaLabelType; labels: VcaLabelView[] }[];
  error: { code: string; message: string; at: number } | null;
  polls: number;
  nextPollAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}
