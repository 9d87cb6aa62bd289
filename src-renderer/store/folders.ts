/**
 * The folders slice: watched roots, kept whole (there are few), patched by pushed batches.
 * Adding a folder goes through its plan first (the dry run), so the screen can show what it
 * would upload before anything does.
 */
import type {
  AppEvents,
  FolderListing,
  IgnorePreview,
  RootInput,
  RootPlan,
  WatchRootView,
} from '../../src-main/shared/contract';
import type { WatchRootOptionsInput } from '../../src-main/shared/watch-views';
import { callSafely, type UiError } from '../bridge/bridge';
import type { SliceContext } from './slice';

export interface FoldersState {
  roots: WatchRootView[];
  loaded: boolean;
  /** The folder being added and its plan, while the user decides. */
  draft: { input: RootInput; plan: RootPlan | null; planning: boolean; error?: UiError } | null;
  preview: IgnorePreview | null;
  /** The screen's own folder browser (a door without a system dialog): the folder it shows. */
  browser: { listing: FolderListing; loading: boolean } | null;
  /** The folder last chosen (system dialog or browser), for the path field; `n` tells two choices of one path apart. */
  chosen: { path: string; n: number } | null;
}

export function initial(): FoldersState {
  return { roots: [], loaded: false, draft: null, preview: null, browser: null, chosen: null };
}

/** Pure: changed roots replace theirs (new ones are appended), removed ones go. */
export function apply(state: FoldersState, batch: AppEvents['roots']): FoldersState {
  const removed = new Set(batch.removed);
  const changed = new Map(batch.changed.map((r) => [r.id, r]));
  const roots = state.roots.filter((r) => !removed.has(r.id)).map((r) => changed.get(r.id) ?? r);
  for (const r of batch.changed) if (!state.roots.some((x) => x.id === r.id) && !removed.has(r.id)) roots.push(r);
  return { ...state, roots };
}

/** A count on a folder's card: what `inFlight` files are depends on whether the folder runs. */
export type RootCountName = keyof WatchRootView['counts'] | 'paused';

/**
 * The counts a folder's card shows, in order. A paused folder's unfinished files are paused
 * with it (their transfers paused by the root), not uploading: their count is named so.
 */
export function rootCounts(root: WatchRootView): Array<[RootCountName, number]> {
  return (Object.keys(root.counts) as Array<keyof WatchRootView['counts']>).map((k) => [
    k === 'inFlight' && root.state === 'paused' ? 'paused' : k,
    root.counts[k],
  ]);
}

function upsert(roots: WatchRootView[], root: WatchRootView): WatchRootView[] {
  return roots.some((r) => r.id === root.id) ? roots.map((r) => (r.id === root.id ? root : r)) : [...roots, root];
}

export function actions(ctx: SliceContext<FoldersState>) {
  const load = async (): Promise<void> => {
    const res = await callSafely(ctx.bridge, 'roots.list', undefined);
    if (!res.ok) return ctx.report(res.error, 'roots.list');
    ctx.set({ roots: res.value, loaded: true });
  };
  const each = async (verb: 'pause' | 'resume' | 'rescan', which: { id: number } | { all: true }): Promise<void> => {
    const res = await callSafely(ctx.bridge, `roots.${verb}`, which);
    if (!res.ok) ctx.report(res.error, `roots.${verb}`);
  };
  return {
    load,
    /** Starts adding a folder: asks the service for its plan. */
    plan: async (input: RootInput): Promise<void> => {
      ctx.set({ draft: { input, plan: null, planning: true }, preview: null });
      const res = await callSafely(ctx.bridge, 'roots.plan', input);
      if (ctx.get().draft?.input !== input) return;
      if (!res.ok) {
        ctx.set({ draft: null });
        return ctx.report(res.error, 'roots.plan');
      }
      ctx.set({ draft: { input, plan: res.value, planning: false } });
    },
    /**
     * The plan again with other options (the plan dialog's): the last plan stays shown, marked
     * as planning, until the new one comes; an answer for options changed since is dropped.
     */
    replan: async (options: WatchRootOptionsInput): Promise<void> => {
      const draft = ctx.get().draft;
      if (!draft) return;
      const input: RootInput = { ...draft.input, options };
      ctx.set({ draft: { input, plan: draft.plan, planning: true } });
      const res = await callSafely(ctx.bridge, 'roots.plan', input);
      const now = ctx.get().draft;
      if (now?.input !== input) return;
      // Options the service refuses (a bad rule or template): said in the dialog, where they are edited.
      if (!res.ok) return ctx.set({ draft: { input, plan: null, planning: false, error: res.error } });
      ctx.set({ draft: { input, plan: res.value, planning: false } });
    },
    cancelDraft: () => ctx.set({ draft: null }),
    /** Adds the drafted folder, with `options` when given (what the plan dialog shows now): uploading starts. */
    confirm: async (options?: WatchRootOptionsInput): Promise<boolean> => {
      const draft = ctx.get().draft;
      if (!draft) return false;
      const input: RootInput = options ? { ...draft.input, options } : draft.input;
      const res = await callSafely(ctx.bridge, 'roots.add', input);
      if (!res.ok) {
        ctx.report(res.error, 'roots.add');
        return false;
      }
      ctx.set((s) => ({ draft: null, roots: upsert(s.roots, res.value) }));
      return true;
    },
    update: async (id: number, prefix: string | undefined, options: WatchRootOptionsInput): Promise<boolean> => {
      const res = await callSafely(ctx.bridge, 'roots.update', { id, prefix, options });
      if (!res.ok) {
        ctx.report(res.error, 'roots.update');
        return false;
      }
      ctx.set((s) => ({ roots: upsert(s.roots, res.value) }));
      return true;
    },
    remove: async (id: number): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'roots.remove', { id });
      if (!res.ok) return ctx.report(res.error, 'roots.remove');
      ctx.set((s) => ({ roots: s.roots.filter((r) => r.id !== id) }));
    },
    pause: (which: { id: number } | { all: true }) => each('pause', which),
    resume: (which: { id: number } | { all: true }) => each('resume', which),
    rescan: (which: { id: number } | { all: true }) => each('rescan', which),
    previewIgnores: async (path: string, options: WatchRootOptionsInput): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'roots.previewIgnores', { path, options, limit: 50 });
      if (!res.ok) return ctx.report(res.error, 'roots.previewIgnores');
      ctx.set({ preview: res.value });
    },
    /**
     * "Choose folder…": the door's `app.chooseFolder` from `start`. A chosen folder (the system
     * dialog) becomes `chosen`; a listing (the headless door) opens the screen's folder browser.
     */
    chooseFolder: async (start?: string): Promise<void> => {
      let res = await callSafely(ctx.bridge, 'app.chooseFolder', start ? { path: start } : {});
      // A typed path the browser may not show (missing, outside the home): it starts at the top instead.
      if (!res.ok && start && res.error.code === 'path-not-found')
        res = await callSafely(ctx.bridge, 'app.chooseFolder', {});
      if (!res.ok) return ctx.report(res.error, 'app.chooseFolder');
      const choice = res.value;
      if (choice.kind === 'chosen') ctx.set((s) => ({ chosen: { path: choice.path, n: (s.chosen?.n ?? 0) + 1 } }));
      else if (choice.kind === 'listing') ctx.set({ browser: { listing: choice.listing, loading: false } });
    },
    /** The folder browser opens another folder (a child, the parent, or a typed path). */
    browseTo: async (path: string): Promise<void> => {
      const open = ctx.get().browser;
      if (!open) return;
      ctx.set({ browser: { ...open, loading: true } });
      const res = await callSafely(ctx.bridge, 'app.chooseFolder', { path });
      if (!ctx.get().browser) return;
      if (!res.ok) {
        ctx.set({ browser: { ...open, loading: false } });
        return ctx.report(res.error, 'app.chooseFolder');
      }
      if (res.value.kind === 'listing') ctx.set({ browser: { listing: res.value.listing, loading: false } });
    },
    /** The folder browser's choice: the folder it shows. */
    chooseBrowsed: () =>
      ctx.set((s) =>
        s.browser ? { browser: null, chosen: { path: s.browser.listing.path, n: (s.chosen?.n ?? 0) + 1 } } : {},
      ),
    closeBrowser: () => ctx.set({ browser: null }),
  };
}

export type FoldersActions = ReturnType<typeof actions>;
