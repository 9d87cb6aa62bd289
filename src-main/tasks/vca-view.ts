import { vcaJobState, vcaNotifyState } from '../protocol/codes';
import { VCA_TYPES } from '../protocol/types';
import type { VcaJobRow, VcaLabelRow } from '../store/tasks/vca-repo';
import { effectiveDecision } from './review';

/** The view types live in shared/ (the renderer uses them); built here from store rows. */
import { VCA_CODE, type VcaJobView, type VcaLabelView } from '../shared/task-views';
export type { VcaJobView, VcaLabelView };

export function vcaJobView(j: VcaJobRow, labels: readonly VcaLabelRow[]): VcaJobView {
  // The documented types in the spec's order, then any other type the service sent, in the order it came.
  const others = [...new Set([...labels].sort((a, b) => a.position - b.position).map((l) => l.type))].filter(
    (t) => !(VCA_TYPES as readonly string[]).includes(t),
  );
  const results = [...VCA_TYPES, ...others]
    .map((type) => ({
      type,
      labels: labels
        .filter((l) => l.type === type)
        .map((l) => ({
          id: l.id,
          attribute: l.attribute,
          confidence: l.confidence,
          decision: l.decision,
          correctedText: l.correctedText,
          effective: effectiveDecision(l, j.minConfidence),
        })),
    }))
    .filter((g) => g.labels.length > 0);
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
  return (job.code === VCA_CODE.failed || job.code === VCA_CODE.succeeded) && job.notifyResult !== 1;
}
