/**
 * The video review slice: VCA jobs, the job under review with a cursor over its labels (the
 * keyboard moves it), and the label browser across jobs. Every decision is sent at once and
 * the job the service returns replaces the local one.
 */
import type { AppEvents, VcaLabelHit, VcaLabelQuery } from '../../src-main/shared/contract';
import type { VcaJobView, VcaLabelDecision } from '../../src-main/shared/task-views';
import { callSafely, type UiError } from '../bridge/bridge';
import type { SliceContext } from './slice';
import { nextToReview, pushUndo, shownItems, undoEntry, type UndoEntry } from './vca-review';

export { LABEL_TYPES, nextToReview, reviewItems, reviewProgress, shownItems, type ReviewItem } from './vca-review';

export interface LabelBrowserForm {
  text: string;
  type: string;
  /** As typed: "0.8", "" for none. */
  minConfidence: string;
  page: number;
}

export interface VcaState {
  jobs: VcaJobView[];
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
    loaded: false,
    currentId: null,
    cursor: 0,
    threshold: null,
    showBelow: false,
    undo: [],
    browser: { form: { text: '', type: '', minConfidence: '', page: 0 }, hits: [], total: 0, searched: false },
  };
}

export function apply(state: VcaState, batch: AppEvents['vca']): VcaState {
  if (batch.changed.length === 0) return state;
  const changed = new Map(batch.changed.map((j) => [j.id, j]));
  const jobs = state.jobs.map((j) => changed.get(j.id) ?? j);
  for (const j of batch.changed) if (!state.jobs.some((x) => x.id === j.id)) jobs.unshift(j);
  return { ...state, jobs };
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
  const record = (before: VcaJobView, after: VcaJobView, cursor: number) =>
    ctx.set((s) => ({ undo: pushUndo(s.undo, undoEntry(before, after, cursor)) }));
  const decide = async (decision: VcaLabelDecision, correctedText?: string): Promise<void> => {
    const job = current();
    const cursor = ctx.get().cursor;
    const item = shownOf(ctx.get())[cursor];
    if (!job || !item) return;
    const res = await callSafely(ctx.bridge, 'vca.decide', {
      jobId: job.id,
      labelId: item.label.id,
      decision,
      correctedText,
    });
    if (!res.ok) return ctx.report(res.error, 'vca.decide');
    record(job, res.value, cursor);
    put(res.value);
    if (ctx.get().currentId !== job.id) return;
    // Every shown label decided: on to the next video that needs a person; else to the next label.
    if (!shownOf(ctx.get()).some((i) => i.label.decision === 'pending') && nextVideo()) return;
    ctx.set((s) => ({ cursor: Math.min(s.cursor + 1, Math.max(0, shownOf(s).length - 1)) }));
  };
  const jobCall = async (method: 'vca.acceptAbove' | 'vca.setThreshold', minConfidence?: number) => {
    const job = current();
    if (!job) return;
    const res =
      method === 'vca.acceptAbove'
        ? await callSafely(ctx.bridge, method, { jobId: job.id })
        : await callSafely(ctx.bridge, method, { jobId: job.id, minConfidence: minConfidence ?? job.minConfidence });
    if (!res.ok) return ctx.report(res.error, method);
    if (method === 'vca.acceptAbove') record(job, res.value, ctx.get().cursor);
    put(res.value);
  };
  /** Takes back the newest decision (or accept-all): each label as it was, the cursor where it was. */
  const undo = async (): Promise<void> => {
    const entry = ctx.get().undo.at(-1);
    if (!entry) return;
    ctx.set((s) => ({ undo: s.undo.slice(0, -1) }));
    let last: VcaJobView | null = null;
    for (const l of entry.labels) {
      const res = await callSafely(ctx.bridge, 'vca.decide', {
        jobId: entry.jobId,
        labelId: l.labelId,
        decision: l.decision,
        ...(l.correctedText !== null ? { correctedText: l.correctedText } : {}),
      });
      if (!res.ok) {
        ctx.report(res.error, 'vca.decide');
        break;
      }
      last = res.value;
    }
    if (!last) return;
    put(last);
    ctx.set((s) => ({
      currentId: entry.jobId,
      cursor: entry.cursor,
      threshold: s.currentId === entry.jobId ? s.threshold : null,
    }));
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
      ctx.set((s) => ({ jobs: res.value, loaded: true, currentId: s.currentId ?? res.value[0]?.id ?? null }));
    },
    open,
    move: (delta: number) =>
      ctx.set((s) => {
        const n = shownOf(s).length;
        return { cursor: n === 0 ? 0 : Math.min(n - 1, Math.max(0, s.cursor + delta)) };
      }),
    setCursor: (cursor: number) => ctx.set({ cursor }),
    nextVideo: () => void nextVideo(),
    accept: () => decide('accepted'),
    reject: () => decide('rejected'),
    correct: (text: string) => decide('corrected', text),
    undo,
    acceptAbove: () => jobCall('vca.acceptAbove'),
    /** The slider moving: the shown labels follow at once; nothing is sent yet. */
    previewThreshold: (threshold: number) => ctx.set((s) => keepCursor(s, { threshold })),
    /** The slider let go: the job's threshold is stored by the service. */
    setThreshold: async (minConfidence: number) => {
      await jobCall('vca.setThreshold', minConfidence);
      ctx.set((s) => keepCursor(s, { threshold: null }));
    },
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
