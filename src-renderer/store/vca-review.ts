/**
 * The pure part of reviewing videos: the order of a job's labels, which of them the
 * threshold shows, which jobs still need a person, and what an undo puts back. No bridge,
 * no store: the vca slice (vca.ts) calls these.
 */
import type { VcaJobView, VcaLabelDecision, VcaLabelView } from '../../src-main/shared/task-views';

export const LABEL_TYPES = ['scenario', 'entity', 'keyword', 'location', 'figure', 'logo'] as const;

export interface ReviewItem {
  type: string;
  label: VcaLabelView;
}

/** A job's labels in review order: the six documented types first, unknown types after, each by confidence. */
export function reviewItems(job: VcaJobView | undefined): ReviewItem[] {
  if (!job) return [];
  const rank = (type: string) => {
    const i = (LABEL_TYPES as readonly string[]).indexOf(type);
    return i === -1 ? LABEL_TYPES.length : i;
  };
  const groups = [...job.results].sort((a, b) => rank(a.type) - rank(b.type) || a.type.localeCompare(b.type));
  return groups.flatMap((g) =>
    [...g.labels].sort((a, b) => b.confidence - a.confidence).map((label) => ({ type: g.type, label })),
  );
}

/**
 * The labels the review shows and the keys move over: those at or above the threshold, or
 * all of them when the person asked to see the ones below too.
 */
export function shownItems(job: VcaJobView | undefined, threshold: number, showBelow: boolean): ReviewItem[] {
  const items = reviewItems(job);
  return showBelow ? items : items.filter((i) => i.label.confidence >= threshold);
}

/** The numbers of the threshold's text ("0.75 · 3 of 6 shown"). */
export function thresholdCounts(
  job: VcaJobView | undefined,
  threshold: number,
  showBelow: boolean,
): { shown: number; total: number } {
  return { shown: shownItems(job, threshold, showBelow).length, total: reviewItems(job).length };
}

/**
 * A job needs a person while a label at or above its threshold is pending; a pending label
 * below it already counts as rejected (the service's rule, tasks/review.ts).
 */
export function needsReview(job: VcaJobView): boolean {
  return job.results.some((g) => g.labels.some((l) => l.decision === 'pending' && l.confidence >= job.minConfidence));
}

/** Jobs with labels count; a job is reviewed once it no longer needs a person. */
export function reviewProgress(jobs: VcaJobView[]): { reviewed: number; total: number } {
  const reviewable = jobs.filter((j) => j.results.some((g) => g.labels.length > 0));
  return { reviewed: reviewable.filter((j) => !needsReview(j)).length, total: reviewable.length };
}

/** The next job after `currentId` that needs a person (wrapping), or null. */
export function nextToReview(jobs: VcaJobView[], currentId: number | null): number | null {
  const start = jobs.findIndex((j) => j.id === currentId);
  for (let i = 1; i <= jobs.length; i++) {
    const job = jobs[(start + i + jobs.length) % jobs.length];
    if (job && job.id !== currentId && needsReview(job)) return job.id;
  }
  return null;
}

/** What one step of undo puts back: the labels a decision changed, as they were, and where the cursor was. */
export interface UndoEntry {
  jobId: number;
  cursor: number;
  labels: Array<{ labelId: number; decision: VcaLabelDecision; correctedText: string | null }>;
}

/** At most this many decisions can be undone. */
export const MAX_UNDO = 100;

/** Pushes an undo step, dropping the oldest past MAX_UNDO. */
export function pushUndo(stack: UndoEntry[], entry: UndoEntry | null): UndoEntry[] {
  return entry ? [...stack, entry].slice(-MAX_UNDO) : stack;
}
