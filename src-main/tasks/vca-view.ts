import { vcaJobState, vcaNotifyState } from '../protocol/codes';
import { VCA_TYPES, type VcaType } from '../protocol/types';
import type { VcaJobRow, VcaLabelRow } from '../store/tasks/vca-repo';
import type { Tracking } from '../store/tasks/rows';
import { effectiveDecision, type EffectiveDecision } from './review';

/**
 * VCA jobs as the UI, the CLI and events see them: codes named by the interface document's
 * lists, labels grouped by type in the document's type order, each with the reviewer's
 * decision and the decision the threshold gives it (review.ts).
 */
export interface VcaLabelView {
  id: number;
  attribute: string;
  confidence: number;
  decision: VcaLabelRow['decision'];
  correctedText: string | null;
  effective: EffectiveDecision;
}

export interface VcaJobView {
  id: number;
  accountId: number;
  jobId: string;
  bucket: string | null;
  sourceUrl: string | null;
  origin: VcaJobRow['origin'];
  transferId: number | null;
  notifyUrl: string | null;
  tracking: Tracking;
  code: number | null;
  state: string | null;
  description: string | null;
  notifyResult: number | null;
  notifyState: string | null;
  minConfidence: number;
  results: { type: VcaType; labels: VcaLabelView[] }[];
  error: { code: string; message: string; at: number } | null;
  polls: number;
  nextPollAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export function vcaJobView(j: VcaJobRow, labels: readonly VcaLabelRow[]): VcaJobView {
  const results = VCA_TYPES.map((type) => ({
    type,
    labels: labels
      .filter((l) => l.type === type)
      .map((l) => ({ id: l.id, attribute: l.attribute, confidence: l.confidence, decision: l.decision, correctedText: l.correctedText, effective: effectiveDecision(l, j.minConfidence) })),
  })).filter((g) => g.labels.length > 0);
  return {
    id: j.id,
    accountId: j.accountId,
    jobId: j.jobId,
    bucket: j.bucket,
    sourceUrl: j.sourceUrl,
    origin: j.origin,
    transferId: j.transferId,
    notifyUrl: j.notifyUrl,
    tracking: j.tracking,
    code: j.code,
    state: j.code === null ? null : vcaJobState(j.code),
    description: j.description,
    notifyResult: j.notifyResult,
    notifyState: j.notifyResult === null ? null : vcaNotifyState(j.notifyResult),
    minConfidence: j.minConfidence,
    results,
    error: j.errorCode === null ? null : { code: j.errorCode, message: j.errorMessage ?? '', at: j.errorAt ?? 0 },
    polls: j.polls,
    nextPollAt: j.nextPollAt,
    createdAt: j.createdAt,
    updatedAt: j.updatedAt,
    finishedAt: j.finishedAt,
  };
}

/**
 * A search answer after which the job no longer changes: analysis over (2 failed, 3
 * succeeded) and its notification not in progress (notifyResult other than 1).
 */
export function isVcaTerminal(job: { code: number; notifyResult?: number }): boolean {
  return (job.code === 2 || job.code === 3) && job.notifyResult !== 1;
}
