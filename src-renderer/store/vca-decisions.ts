/**
 * The review's decisions as the renderer holds them between a key and the service's answer
 * (pure: no bridge, no store; the vca slice drives it).
 *
 * A key makes a Decision at once: the labels it changes (the label under the cursor at the
 * time of the key, or every pending label above the threshold for "accept all"), with a
 * client-chosen id. Decisions wait in one queue in key order and are sent one at a time; the
 * job the review shows is the service's last answer with every decision not yet confirmed
 * laid over it (`rebase`), so the screen never waits for the network and an answer never
 * moves a decision to another label. An answer is matched to its decision by id; a failed
 * decision stays on its labels, marked, until it is retried or a later decision covers them.
 */
import type { UiError } from '../bridge/bridge';
import type { VcaJobView, VcaLabelDecision } from '../../src-main/shared/task-views';

/** What one label becomes. */
export interface LabelChange {
  labelId: number;
  decision: VcaLabelDecision;
  correctedText: string | null;
}

/**
 * - `decide`: one label (a, r, e), sent as `vca.decide`;
 * - `acceptAbove`: the pending labels at or above the job's threshold, sent as `vca.acceptAbove`;
 * - `undo`: labels put back as they were, one `vca.decide` per label, in order.
 */
export type DecisionKind = 'decide' | 'acceptAbove' | 'undo';

export interface Decision {
  /** Chosen by the renderer, increasing: answers and failures find their decision by it. */
  id: number;
  jobId: number;
  kind: DecisionKind;
  changes: LabelChange[];
  /** queued: waits its turn; sending: the one in flight; failed: the service refused or could not be reached. */
  state: 'queued' | 'sending' | 'failed';
  error?: UiError;
}

/** The job with `changes` applied to its labels (a new object; untouched groups keep theirs). */
export function applyChanges(job: VcaJobView, changes: readonly LabelChange[]): VcaJobView {
  if (changes.length === 0) return job;
  const byId = new Map(changes.map((c) => [c.labelId, c]));
  let touched = false;
  const results = job.results.map((g) => {
    if (!g.labels.some((l) => byId.has(l.id))) return g;
    touched = true;
    return {
      ...g,
      labels: g.labels.map((l) => {
        const c = byId.get(l.id);
        return c ? { ...l, decision: c.decision, correctedText: c.correctedText } : l;
      }),
    };
  });
  return touched ? { ...job, results } : job;
}

/** The job as the review shows it: the service's view with the decisions not yet confirmed over it, in order. */
export function rebase(job: VcaJobView, decisions: readonly Decision[]): VcaJobView {
  let out = job;
  for (const d of decisions) if (d.jobId === job.id) out = applyChanges(out, d.changes);
  return out;
}

/** Every job rebased; a job no decision touches keeps its object. */
export function rebaseAll(jobs: readonly VcaJobView[], decisions: readonly Decision[]): VcaJobView[] {
  if (decisions.length === 0) return [...jobs];
  const touched = new Set(decisions.map((d) => d.jobId));
  return jobs.map((j) => (touched.has(j.id) ? rebase(j, decisions) : j));
}

/** The labels of a job as they are now: id → {decision, correctedText}. */
export function labelStates(job: VcaJobView): Map<number, LabelChange> {
  return new Map(
    job.results.flatMap((g) =>
      g.labels.map((l) => [l.id, { labelId: l.id, decision: l.decision, correctedText: l.correctedText }] as const),
    ),
  );
}

/** The labels `changes` would change, as they are in `job` now (what an undo puts back); unchanged ones left out. */
export function previousOf(job: VcaJobView, changes: readonly LabelChange[]): LabelChange[] {
  const now = labelStates(job);
  return changes.flatMap((c) => {
    const was = now.get(c.labelId);
    if (!was || (was.decision === c.decision && was.correctedText === c.correctedText)) return [];
    return [was];
  });
}

/**
 * Adds a decision at the end of the queue. A failed decision whose every label the new one
 * changes is dropped: the newer decision is what the reviewer wants for them now.
 */
export function enqueue(queue: readonly Decision[], d: Decision): Decision[] {
  const covered = new Set(d.changes.map((c) => c.labelId));
  const kept = queue.filter(
    (q) => !(q.state === 'failed' && q.jobId === d.jobId && q.changes.every((c) => covered.has(c.labelId))),
  );
  return [...kept, d];
}

/** The decision to send next: the first queued one, unless one is already in flight. */
export function nextToSend(queue: readonly Decision[]): Decision | undefined {
  if (queue.some((d) => d.state === 'sending')) return undefined;
  return queue.find((d) => d.state === 'queued');
}

export function markSending(queue: readonly Decision[], id: number): Decision[] {
  return queue.map((d) => (d.id === id ? { ...d, state: 'sending' as const } : d));
}

/** The service confirmed decision `id`: it leaves the queue (its effect is in the service's view now). */
export function confirm(queue: readonly Decision[], id: number): Decision[] {
  return queue.filter((d) => d.id !== id);
}

/**
 * Decision `id` failed: marked with the error, or dropped when later decisions change every
 * one of its labels (nothing of it would remain to retry).
 */
export function fail(queue: readonly Decision[], id: number, error: UiError): Decision[] {
  const i = queue.findIndex((d) => d.id === id);
  const d = queue[i];
  if (!d) return [...queue];
  const later = new Set(
    queue
      .slice(i + 1)
      .filter((q) => q.jobId === d.jobId)
      .flatMap((q) => q.changes.map((c) => c.labelId)),
  );
  if (d.changes.every((c) => later.has(c.labelId))) return confirm(queue, id);
  return queue.map((q) => (q.id === id ? { ...q, state: 'failed' as const, error } : q));
}

/** Sends a failed decision again, after every decision made since (so it cannot undo a newer one). */
export function retry(queue: readonly Decision[], id: number): Decision[] {
  const d = queue.find((q) => q.id === id);
  if (!d || d.state !== 'failed') return [...queue];
  const { error: _error, ...rest } = d;
  return [...queue.filter((q) => q.id !== id), { ...rest, state: 'queued' }];
}

/** The failed decision on each label (label id → decision), for the list to mark and offer Retry. */
export function failuresByLabel(queue: readonly Decision[]): Map<number, Decision> {
  const out = new Map<number, Decision>();
  for (const d of queue) if (d.state === 'failed') for (const c of d.changes) out.set(c.labelId, d);
  return out;
}

/** How many decisions wait to be sent or for their answer (what leaving the page now would lose). */
export function unsentCount(queue: readonly Decision[]): number {
  return queue.filter((d) => d.state !== 'failed').length;
}

/** Labels with a decision not yet confirmed (queued or in flight). */
export function savingLabels(queue: readonly Decision[]): Set<number> {
  return new Set(queue.filter((d) => d.state !== 'failed').flatMap((d) => d.changes.map((c) => c.labelId)));
}
