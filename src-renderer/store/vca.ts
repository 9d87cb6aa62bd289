/**
 * The video review slice: VCA jobs, the job under review with a cursor over its labels (the
 * keyboard moves it), and the label browser across jobs. Every decision is sent at once and
 * the job the service returns replaces the local one.
 */
import type { AppEvents, VcaLabelHit, VcaLabelQuery } from '../../src-main/shared/contract';
import type { VcaJobView, VcaLabelDecision, VcaLabelView } from '../../src-main/shared/task-views';
import { callSafely } from '../bridge/bridge';
import type { SliceContext } from './slice';

export const LABEL_TYPES = ['scenario', 'entity', 'keyword', 'location', 'figure', 'logo'] as const;

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
  /** Index into reviewItems(current job). */
  cursor: number;
  browser: { form: LabelBrowserForm; hits: VcaLabelHit[]; total: number; searched: boolean };
}

export const BROWSER_PAGE = 50;

export function initial(): VcaState {
  return {
    jobs: [],
    loaded: false,
    currentId: null,
    cursor: 0,
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

/** A job has something to review once it has labels; it is reviewed when none is pending. */
export function reviewProgress(jobs: VcaJobView[]): { reviewed: number; total: number } {
  const reviewable = jobs.filter((j) => j.results.some((g) => g.labels.length > 0));
  const reviewed = reviewable.filter((j) => j.results.every((g) => g.labels.every((l) => l.decision !== 'pending')));
  return { reviewed: reviewed.length, total: reviewable.length };
}

/** The next job after `currentId` with a pending label (wrapping), or null. */
export function nextToReview(jobs: VcaJobView[], currentId: number | null): number | null {
  const pending = (j: VcaJobView) => j.results.some((g) => g.labels.some((l) => l.decision === 'pending'));
  const start = jobs.findIndex((j) => j.id === currentId);
  for (let i = 1; i <= jobs.length; i++) {
    const job = jobs[(start + i + jobs.length) % jobs.length];
    if (job && job.id !== currentId && pending(job)) return job.id;
  }
  return null;
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

export function actions(ctx: SliceContext<VcaState>) {
  const put = (job: VcaJobView) => ctx.set((s) => apply(s, { changed: [job] }));
  const current = () => ctx.get().jobs.find((j) => j.id === ctx.get().currentId);
  const decide = async (decision: VcaLabelDecision, correctedText?: string): Promise<void> => {
    const job = current();
    const item = reviewItems(job)[ctx.get().cursor];
    if (!job || !item) return;
    const res = await callSafely(ctx.bridge, 'vca.decide', {
      jobId: job.id,
      labelId: item.label.id,
      decision,
      correctedText,
    });
    if (!res.ok) return ctx.report(res.error, 'vca.decide');
    put(res.value);
    // Auto-advance to the next label.
    ctx.set((s) => ({ cursor: Math.min(s.cursor + 1, Math.max(0, reviewItems(res.value).length - 1)) }));
  };
  const jobCall = async (method: 'vca.acceptAbove' | 'vca.setThreshold', minConfidence?: number) => {
    const job = current();
    if (!job) return;
    const res =
      method === 'vca.acceptAbove'
        ? await callSafely(ctx.bridge, method, { jobId: job.id })
        : await callSafely(ctx.bridge, method, { jobId: job.id, minConfidence: minConfidence ?? job.minConfidence });
    if (!res.ok) return ctx.report(res.error, method);
    put(res.value);
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
    open: (id: number) => ctx.set({ currentId: id, cursor: 0 }),
    move: (delta: number) =>
      ctx.set((s) => {
        const n = reviewItems(s.jobs.find((j) => j.id === s.currentId)).length;
        return { cursor: n === 0 ? 0 : Math.min(n - 1, Math.max(0, s.cursor + delta)) };
      }),
    setCursor: (cursor: number) => ctx.set({ cursor }),
    nextVideo: () => {
      const next = nextToReview(ctx.get().jobs, ctx.get().currentId);
      if (next !== null) ctx.set({ currentId: next, cursor: 0 });
    },
    accept: () => decide('accepted'),
    reject: () => decide('rejected'),
    correct: (text: string) => decide('corrected', text),
    acceptAbove: () => jobCall('vca.acceptAbove'),
    setThreshold: (minConfidence: number) => jobCall('vca.setThreshold', minConfidence),
    create: async (url: string): Promise<boolean> => {
      const res = await callSafely(ctx.bridge, 'vca.create', { source: { url } });
      if (!res.ok) {
        ctx.report(res.error, 'vca.create');
        return false;
      }
      put(res.value);
      return true;
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
