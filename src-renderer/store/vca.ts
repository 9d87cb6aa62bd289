/**
 * The video review slice: VCA jobs, the job under review with a cursor over its labels (the
 * keyboard moves it), and the label browser across jobs.
 *
 * Decisions are local first (vca-decisions.ts): a key decides the label under the cursor at
 * that moment, the review shows it and the cursor moves on at once; the decision then waits
 * in a queue sent one at a time in key order. `jobs` is what the screens show: `confirmed`
 * (the service's last word per job, from answers and pushed events) with the decisions not
 * yet confirmed laid over it. An answer is matched to its decision by the decision's id,
 * never by where the cursor is now.
 */
import type { AppEvents, VcaLabelHit, VcaLabelQuery } from '../../src-main/shared/contract';
import type { VcaJobView, VcaLabelDecision } from '../../src-main/shared/task-views';
import { callSafely, type UiError, type UiResult } from '../bridge/bridge';
import type { SliceContext } from './slice';
import {
  confirm,
  enqueue,
  fail,
  markSending,
  nextToSend,
  previousOf,
  rebaseAll,
  retry,
  type Decision,
  type DecisionKind,
  type LabelChange,
} from './vca-decisions';
import { nextToReview, pushUndo, shownItems, type UndoEntry } from './vca-review';

export { LABEL_TYPES, nextToReview, reviewItems, reviewProgress, shownItems, type ReviewItem } from './vca-review';

export interface LabelBrowserForm {
  text: string;
  type: string;
  /** As typed: "0.8", "" for none. */
  minConfidence: string;
  page: number;
}

export interface VcaState {
  /** The jobs as the review shows them: `confirmed` with `decisions` laid over it. */
  jobs: VcaJobView[];
  /** The jobs as the service last sent them (answers and pushed events). */
  confirmed: VcaJobView[];
  /** Decisions not yet confirmed by the service, in key order (queued, in flight, failed). */
  decisions: Decision[];
  /** The id the next decision gets. */
  nextDecisionId: number;
  loaded: boolean;
  currentId: number | null;
  /** Index into the shown labels of the current job (shownItems). */
  cursor: number;
  /** The threshold slider while it moves; null: the job's own minConfidence. */
  threshold: number | null;
  /** Show the labels below the threshold too (hidden by default). */
  showBelow: boolean;
  /** Decisions that Ctrl/Cmd+Z can take back, newest last. */
  undo: UndoEntry[];
  browser: { form: LabelBrowserForm; hits: VcaLabelHit[]; total: number; searched: boolean };
}

export const BROWSER_PAGE = 50;

export function initial(): VcaState {
  return {
    jobs: [],
    confirmed: [],
    decisions: [],
    nextDecisionId: 1,
    loaded: false,
    currentId: null,
    cursor: 0,
    threshold: null,
    showBelow: false,
    undo: [],
    browser: { form: { text: '', type: '', minConfidence: '', page: 0 }, hits: [], total: 0, searched: false },
  };
}

/**
 * Takes jobs from the service (a pushed batch or an answer): replaces known ones, puts new
 * ones first, and lays the decisions not yet confirmed over them again.
 */
export function apply(state: VcaState, batch: AppEvents['vca']): VcaState {
  if (batch.changed.length === 0) return state;
  const changed = new Map(batch.changed.map((j) => [j.id, j]));
  const confirmed = state.confirmed.map((j) => changed.get(j.id) ?? j);
  for (const j of batch.changed) if (!state.confirmed.some((x) => x.id === j.id)) confirmed.unshift(j);
  return withDecisions({ ...state, confirmed }, state.decisions);
}

/** The state with this queue of decisions, and `jobs` recomputed from `confirmed` and it. */
function withDecisions(state: VcaState, decisions: Decision[]): VcaState {
  return { ...state, decisions, jobs: rebaseAll(state.confirmed, decisions) };
}

/** The threshold the review uses now: the slider's while it moves, else the job's. */
export function thresholdOf(state: VcaState, job: VcaJobView | undefined): number {
  return state.threshold ?? job?.minConfidence ?? 0.5;
}

/** The labels the keys move over in the job under review. */
export function shownOf(state: VcaState): ReturnType<typeof shownItems> {
  const job = state.jobs.find((j) => j.id === state.currentId);
  return shownItems(job, thresholdOf(state, job), state.showBelow);
}

/**
 * The label browser's form as a query: text trimmed, a type only when chosen, a confidence
 * only when it is a number within 0…1 (anything else is ignored rather than sent), a page of
 * BROWSER_PAGE hits.
 */
export function labelQuery(form: LabelBrowserForm): VcaLabelQuery {
  const query: VcaLabelQuery = { offset: Math.max(0, form.page) * BROWSER_PAGE, limit: BROWSER_PAGE };
  const text = form.text.trim();
  if (text) query.text = text;
  if (form.type) query.type = form.type;
  const min = form.minConfidence.trim() === '' ? NaN : Number(form.minConfidence);
  if (Number.isFinite(min) && min >= 0 && min <= 1) query.minConfidence = min;
  return query;
}

/** The slice's state with a patch, and the cursor kept on the label it was on (else the first). */
function keepCursor(s: VcaState, patch: Partial<VcaState>): Partial<VcaState> {
  const id = shownOf(s)[s.cursor]?.label.id;
  const index = shownOf({ ...s, ...patch }).findIndex((i) => i.label.id === id);
  return { ...patch, cursor: Math.max(0, index) };
}

/** What "Analyse" sends: a video URL, and the account and bucket when the form has them. */
export interface VcaCreateForm {
  url: string;
  accountId?: number;
  bucket?: string;
}

export function actions(ctx: SliceContext<VcaState>) {
  const put = (job: VcaJobView) => ctx.set((s) => apply(s, { changed: [job] }));
  const current = () => ctx.get().jobs.find((j) => j.id === ctx.get().currentId);
  const open = (id: number) => ctx.set({ currentId: id, cursor: 0, threshold: null });
  /** Opens the next job that needs a person; false when there is none. */
  const nextVideo = (): boolean => {
    const next = nextToReview(ctx.get().jobs, ctx.get().currentId);
    if (next !== null) open(next);
    return next !== null;
  };

  /** One call of the service for a decision; resolves to the job as the service has it after. */
  const send = async (d: Decision): Promise<UiResult<VcaJobView>> => {
    if (d.kind === 'acceptAbove') return callSafely(ctx.bridge, 'vca.acceptAbove', { jobId: d.jobId });
    let last: UiResult<VcaJobView> | null = null;
    for (const c of d.changes) {
      last = await callSafely(ctx.bridge, 'vca.decide', {
        jobId: d.jobId,
        labelId: c.labelId,
        decision: c.decision,
        ...(c.correctedText !== null ? { correctedText: c.correctedText } : {}),
      });
      if (!last.ok) return last;
    }
    return last ?? { ok: true, value: ctx.get().confirmed.find((j) => j.id === d.jobId) as VcaJobView };
  };
  /** Sends the queued decisions one at a time, in order, until none is left. */
  const pump = async (): Promise<void> => {
    for (let d = nextToSend(ctx.get().decisions); d; d = nextToSend(ctx.get().decisions)) {
      const id = d.id;
      ctx.set((s) => withDecisions(s, markSending(s.decisions, id)));
      const res = await send(d);
      if (res.ok) {
        ctx.set((s) => withDecisions(apply(s, { changed: [res.value] }), confirm(s.decisions, id)));
        continue;
      }
      // One notice for a run of failures (the socket closed…); each label shows its own.
      const first = !ctx.get().decisions.some((q) => q.state === 'failed');
      ctx.set((s) => withDecisions(s, fail(s.decisions, id, res.error)));
      if (first) ctx.report(res.error, d.kind === 'acceptAbove' ? 'vca.acceptAbove' : 'vca.decide');
    }
  };
  let running: Promise<void> | null = null;
  /** Starts sending if nothing is being sent; resolves once the queue has nothing left to send. */
  const kick = (): Promise<void> => {
    running ??= pump().finally(() => {
      running = null;
    });
    return running;
  };
  /**
   * Records a decision on job `jobId` and shows it at once; queued to be sent. Every decision
   * but an undo can be undone: the labels as they were and `cursor` are kept for that.
   */
  const record = (jobId: number, kind: DecisionKind, changes: LabelChange[], cursor: number): void => {
    const job = ctx.get().jobs.find((j) => j.id === jobId);
    if (!job) return;
    const before = previousOf(job, changes);
    ctx.set((s) => {
      const d: Decision = { id: s.nextDecisionId, jobId, kind, changes, state: 'queued' };
      return {
        ...withDecisions(s, enqueue(s.decisions, d)),
        nextDecisionId: s.nextDecisionId + 1,
        undo: kind === 'undo' || before.length === 0 ? s.undo : pushUndo(s.undo, { jobId, cursor, labels: before }),
      };
    });
    void kick();
  };
  /**
   * Decides the label under the cursor now (or `labelId`, the label a correction was opened
   * on), then moves on at once: to the next label, or to the next video once every shown
   * label is decided.
   */
  const decide = (decision: VcaLabelDecision, correctedText?: string, labelId?: number): Promise<void> => {
    const s = ctx.get();
    const job = current();
    const items = shownOf(s);
    const index = labelId === undefined ? s.cursor : items.findIndex((i) => i.label.id === labelId);
    const item = items[index];
    if (!job || !item) return kick();
    const text = decision === 'corrected' ? (correctedText?.trim() ?? '') : '';
    if (decision === 'corrected' && !text) return kick();
    record(job.id, 'decide', [{ labelId: item.label.id, decision, correctedText: text || null }], index);
    if (!shownOf(ctx.get()).some((i) => i.label.decision === 'pending') && nextVideo()) return kick();
    ctx.set((st) => ({ cursor: Math.min(index + 1, Math.max(0, shownOf(st).length - 1)) }));
    return kick();
  };
  /** Accepts every pending label at or above the job's threshold, as one decision (one undo). */
  const acceptAbove = (): Promise<void> => {
    const job = current();
    if (!job) return kick();
    const changes = job.results.flatMap((g) =>
      g.labels
        .filter((l) => l.decision === 'pending' && l.confidence >= job.minConfidence)
        .map((l) => ({ labelId: l.id, decision: 'accepted' as const, correctedText: null })),
    );
    if (changes.length > 0) record(job.id, 'acceptAbove', changes, ctx.get().cursor);
    return kick();
  };
  const setThreshold = async (minConfidence: number): Promise<void> => {
    const job = current();
    if (job) {
      const res = await callSafely(ctx.bridge, 'vca.setThreshold', { jobId: job.id, minConfidence });
      if (!res.ok) ctx.report(res.error, 'vca.setThreshold');
      else put(res.value);
    }
    ctx.set((s) => keepCursor(s, { threshold: null }));
  };
  /** Takes back the newest decision (or accept-all): its labels as they were, sent in turn; the cursor where it was. */
  const undo = (): Promise<void> => {
    const entry = ctx.get().undo.at(-1);
    if (!entry) return kick();
    ctx.set((s) => ({ undo: s.undo.slice(0, -1) }));
    record(entry.jobId, 'undo', entry.labels, entry.cursor);
    ctx.set((s) => ({
      currentId: entry.jobId,
      cursor: entry.cursor,
      threshold: s.currentId === entry.jobId ? s.threshold : null,
    }));
    return kick();
  };
  const search = async (form: LabelBrowserForm): Promise<void> => {
    ctx.set((s) => ({ browser: { ...s.browser, form } }));
    const res = await callSafely(ctx.bridge, 'vca.labels', labelQuery(form));
    if (!res.ok) return ctx.report(res.error, 'vca.labels');
    ctx.set({ browser: { form, hits: res.value.hits, total: res.value.total, searched: true } });
  };
  return {
    load: async (): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'vca.list', { limit: 500 });
      if (!res.ok) return ctx.report(res.error, 'vca.list');
      ctx.set((s) => ({
        ...withDecisions({ ...s, confirmed: res.value }, s.decisions),
        loaded: true,
        currentId: s.currentId ?? res.value[0]?.id ?? null,
      }));
      // Loaded again after a reconnect: the decisions the closed connection failed are sent again, in order.
      const lost = ctx.get().decisions.filter((d) => d.state === 'failed' && d.error?.code === 'bridge-closed');
      if (lost.length === 0) return;
      ctx.set((s) =>
        withDecisions(
          s,
          lost.reduce((q, d) => retry(q, d.id), s.decisions),
        ),
      );
      await kick();
    },
    open,
    move: (delta: number) =>
      ctx.set((s) => {
        const n = shownOf(s).length;
        return { cursor: n === 0 ? 0 : Math.min(n - 1, Math.max(0, s.cursor + delta)) };
      }),
    setCursor: (cursor: number) => ctx.set({ cursor }),
    /** The label under the cursor now (read at the time of a key, not of the last render). */
    underCursor: () => shownOf(ctx.get())[ctx.get().cursor],
    nextVideo: () => void nextVideo(),
    accept: () => decide('accepted'),
    reject: () => decide('rejected'),
    /** Corrects the label `labelId` (the one the correction was opened on), else the one under the cursor. */
    correct: (text: string, labelId?: number) => decide('corrected', text, labelId),
    undo,
    acceptAbove,
    /** Sends a failed decision again (after the decisions made since). */
    retryDecision: (id: number): Promise<void> => {
      ctx.set((s) => withDecisions(s, retry(s.decisions, id)));
      return kick();
    },
    /** Resolves once every queued decision was answered (confirmed or failed). */
    settled: (): Promise<void> => running ?? Promise.resolve(),
    /** The slider moving: the shown labels follow at once; nothing is sent yet. */
    previewThreshold: (threshold: number) => ctx.set((s) => keepCursor(s, { threshold })),
    /** The slider let go: the job's threshold is stored by the service. */
    setThreshold,
    setShowBelow: (showBelow: boolean) => ctx.set((s) => keepCursor(s, { showBelow })),
    /** Asks for an analysis; resolves to the service's refusal (for the form to show) or null. */
    create: async (form: VcaCreateForm): Promise<UiError | null> => {
      const bucket = form.bucket?.trim();
      const res = await callSafely(ctx.bridge, 'vca.create', {
        ...(form.accountId !== undefined ? { accountId: form.accountId } : {}),
        source: { url: form.url.trim(), ...(bucket ? { bucket } : {}) },
      });
      if (!res.ok) return res.error;
      put(res.value);
      return null;
    },
    search,
    /** Exports the jobs and returns the file for the screen to save. */
    exportJobs: async (jobIds: number[], format: 'csv' | 'json') => {
      const res = await callSafely(ctx.bridge, 'vca.export', { jobIds, format });
      if (!res.ok) {
        ctx.report(res.error, 'vca.export');
        return null;
      }
      return res.value;
    },
  };
}

export type VcaActions = ReturnType<typeof actions>;
