import type { VcaEffectiveDecision } from '../shared/task-views';
import type { VcaJobRow, VcaLabelRow } from '../store/tasks/vca-repo';

/**
 * The review model of a VCA job's labels.
 *
 * A reviewer's explicit decision always wins: `accepted`, `rejected`, or `corrected` (the
 * label is kept under the corrected text). For a label nobody decided on, the job's
 * minimum confidence decides: at or above it the label counts as accepted, below it as
 * rejected. So a reviewer only needs to reject the wrong labels above the threshold and
 * rescue the right ones below it; with no review at all, export gives the labels the
 * threshold lets through.
 */
/** One union for effective decisions, defined with the views (shared/task-views.ts). */
export type EffectiveDecision = VcaEffectiveDecision;

export function effectiveDecision(
  label: Pick<VcaLabelRow, 'decision' | 'confidence'>,
  minConfidence: number,
): EffectiveDecision {
  switch (label.decision) {
    case 'accepted':
    case 'corrected':
    case 'rejected':
      return label.decision;
    case 'pending':
      return label.confidence >= minConfidence ? 'above-threshold' : 'below-threshold';
  }
}

export function isAccepted(d: EffectiveDecision): boolean {
  return d === 'accepted' || d === 'corrected' || d === 'above-threshold';
}

/** One accepted label of one video: a row of the CSV and JSON exports. */
export interface ExportRow {
  jobId: string;
  /** The analysed video's URL ('' when the job was not created here and the service does not say). */
  video: string;
  bucket: string;
  type: string;
  /** The label as exported: the corrected text when corrected, else the service's attribute. */
  label: string;
  /** The service's attribute. */
  originalLabel: string;
  confidence: number;
  /** Why it is exported: 'accepted', 'corrected' or 'above-threshold'. */
  decision: 'accepted' | 'corrected' | 'above-threshold';
}

/** Accepted labels of one job, in result order. */
export function acceptedRows(job: VcaJobRow, labels: readonly VcaLabelRow[]): ExportRow[] {
  const rows: ExportRow[] = [];
  for (const l of labels) {
    const d = effectiveDecision(l, job.minConfidence);
    if (d !== 'accepted' && d !== 'corrected' && d !== 'above-threshold') continue;
    rows.push({
      jobId: job.jobId,
      video: job.sourceUrl ?? '',
      bucket: job.bucket ?? '',
      type: l.type,
      label: d === 'corrected' && l.correctedText !== null ? l.correctedText : l.attribute,
      originalLabel: l.attribute,
      confidence: l.confidence,
      decision: d,
    });
  }
  return rows;
}

/** Counts for a review screen. */
export function reviewSummary(
  job: VcaJobRow,
  labels: readonly VcaLabelRow[],
): Record<EffectiveDecision, number> & { total: number } {
  const out = {
    accepted: 0,
    corrected: 0,
    rejected: 0,
    'above-threshold': 0,
    'below-threshold': 0,
    total: labels.length,
  };
  for (const l of labels) out[effectiveDecision(l, job.minConfidence)]++;
  return out;
}
