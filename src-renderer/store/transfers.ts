/**
 * The transfers slice: a window onto the service's transfer list. Only pages near what the
 * list shows are held (pages of PAGE_SIZE rows fetched with `transfers.list`); pushed batches
 * patch the rows held and mark the pages stale when a row may have entered or left the
 * filtered list, and the visible pages are then fetched again.
 *
 * A row, a page's id list or the totals that a batch or a fetch leaves as they were keep
 * their object: the list's rows are memoized on them, so with 10,000 transfers moving only
 * the rows whose values changed render again.
 */
import type {
  AppEvents,
  TransferDetail,
  TransferQuery,
  TransferSelection,
  TransferSortField,
  TransferTotals,
  TransferView,
} from '../../src-main/shared/contract';
import { emptyTotals } from '../../src-main/common/totals';
import { printable } from '../../src-main/shared/keys';
import { TRANSFER_STATES, type TransferSource, type TransferState } from '../../src-main/shared/models';
import { shallow } from 'zustand/vanilla/shallow';
import { callSafely, type StagedFile, type UiError } from '../bridge/bridge';
import type { SliceContext } from './slice';

export const PAGE_SIZE = 100;
/** Pages kept on each side of the visible ones; farther pages are dropped. */
const KEEP_PAGES = 4;
/** Throughput samples kept for the chart: one a second, five minutes. */
export const HISTORY_SECONDS = 300;

export { TRANSFER_STATES };

export interface TransferFilters {
  states: TransferState[];
  accountId: number | null;
  source: TransferSource | null;
  rootId: number | null;
  text: string;
  sort: { field: TransferSortField; direction: 'asc' | 'desc' };
}

export interface TransfersState {
  filters: TransferFilters;
  /** Rows matching the filters (the list's length). */
  total: number;
  totals: TransferTotals;
  throughput: number;
  history: Array<{ at: number; bytesPerSecond: number }>;
  /** Page index → ids in list order. */
  pages: Record<number, number[]>;
  rows: Record<number, TransferView>;
  /** Pages asked for and not yet answered. */
  loading: number[];
  /** Rows shown now, [start, end). */
  visible: [number, number];
  /** A batch may have moved rows in or out of the filtered list: the visible pages need fetching again. */
  stale: boolean;
  loaded: boolean;
  selected: number[];
  allSelected: boolean;
  /** The list position a shift-click extends from. */
  anchor: number | null;
  detailId: number | null;
  detail: TransferDetail | null;
  /**
   * The "add" dialog: paths known so far, and whether some dropped files had no local path (a
   * browser); `folder` when what was dropped is one folder (it may be watched instead: its path
   * when the door knows it); `error`, why the last add was refused: the dialog stays open and
   * says it (a toast would stand under the dialog's mask).
   */
  adding: {
    paths: string[];
    noPath: boolean;
    staged: StagedFile[];
    folder: { name: string; path: string | null } | null;
    error?: UiError;
  } | null;
  /**
   * The add in progress, from the first click until the service answered: how many files of
   * `total` were sent so far (a browser drop sends each file's bytes first; paths are one
   * request, `done` stays 0). While it is set, a second add is refused: a double click must
   * not queue the batch twice.
   */
  addProgress: { done: number; total: number } | null;
}

export function initial(): TransfersState {
  return {
    filters: {
      states: [],
      accountId: null,
      source: null,
      rootId: null,
      text: '',
      sort: { field: 'createdAt', direction: 'desc' },
    },
    total: 0,
    totals: emptyTotals(),
    throughput: 0,
    history: [],
    pages: {},
    rows: {},
    loading: [],
    visible: [0, 0],
    stale: false,
    loaded: false,
    selected: [],
    allSelected: false,
    anchor: null,
    detailId: null,
    detail: null,
    adding: null,
    addProgress: null,
  };
}

/** Whether a row with these values belongs in the filtered list (text matched like the service: key or path). */
export function matches(filters: TransferFilters, row: TransferView): boolean {
  if (filters.states.length > 0 && !filters.states.includes(row.state)) return false;
  if (filters.accountId !== null && row.accountId !== filters.accountId) return false;
  if (filters.source !== null && row.source !== filters.source) return false;
  if (filters.rootId !== null && row.rootId !== filters.rootId) return false;
  const text = filters.text.trim().toLowerCase();
  if (text && !row.key.toLowerCase().includes(text) && !row.localPath.toLowerCase().includes(text)) return false;
  return true;
}

/** Applies one pushed batch (pure). `now` stamps the throughput sample. */
export function apply(state: TransfersState, batch: AppEvents['transfers'], now: number): TransfersState {
  let rows = state.rows;
  let stale = state.stale;
  const copy = (): Record<number, TransferView> => (rows === state.rows ? { ...state.rows } : rows);
  for (const row of batch.changed) {
    const held = state.rows[row.id];
    if (held) {
      if (sameRow(held, row)) continue;
      rows = copy();
      rows[row.id] = row;
      if (!matches(state.filters, row) || held.state !== row.state) stale = true;
    } else if (matches(state.filters, row)) {
      stale = true; // A new or newly matching row: where it goes depends on the sort.
    }
  }
  for (const p of batch.progress) {
    const held = rows[p.id];
    if (!held) continue;
    if (
      held.bytesDone === p.bytesDone &&
      held.size === p.size &&
      held.speed === p.speed &&
      held.etaSeconds === p.etaSeconds
    )
      continue;
    rows = copy();
    rows[p.id] = { ...held, bytesDone: p.bytesDone, size: p.size, speed: p.speed, etaSeconds: p.etaSeconds };
  }
  if (batch.removed.length > 0) {
    rows = copy();
    for (const id of batch.removed) delete rows[id];
    stale = true;
  }
  const removed = new Set(batch.removed);
  const selected = batch.removed.length ? state.selected.filter((id) => !removed.has(id)) : state.selected;
  return {
    ...state,
    rows,
    stale,
    selected,
    totals: shallow(state.totals, batch.totals) ? state.totals : batch.totals,
    throughput: batch.throughput,
    history: addSample(state.history, now, batch.throughput),
    detailId: state.detailId !== null && removed.has(state.detailId) ? null : state.detailId,
  };
}

/** Whether two versions of a row show the same (fields equal, nested objects field by field). */
export function sameRow(a: TransferView, b: TransferView): boolean {
  if (a === b) return true;
  const keys = Object.keys(b) as Array<keyof TransferView>;
  if (Object.keys(a).length !== keys.length) return false;
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    return x === y || (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && shallow(x, y));
  });
}

/**
 * A fetched page merged into the rows held (pure): a row that did not change keeps its object,
 * and so does the page's id list when it holds the same ids.
 */
export function mergePage(
  state: Pick<TransfersState, 'rows' | 'pages'>,
  page: number,
  fetched: TransferView[],
): Pick<TransfersState, 'rows' | 'pages'> {
  let rows = state.rows;
  for (const row of fetched) {
    const held = rows[row.id];
    if (held && sameRow(held, row)) continue;
    if (rows === state.rows) rows = { ...state.rows };
    rows[row.id] = row;
  }
  const ids = fetched.map((r) => r.id);
  const heldIds = state.pages[page];
  const pages = heldIds && shallow(heldIds, ids) ? state.pages : { ...state.pages, [page]: ids };
  return { rows, pages };
}

/** At most one sample a second; samples older than HISTORY_SECONDS are dropped. */
export function addSample(
  history: TransfersState['history'],
  at: number,
  bytesPerSecond: number,
): TransfersState['history'] {
  const last = history[history.length - 1];
  if (last && at - last.at < 1000) {
    if (bytesPerSecond <= last.bytesPerSecond) return history;
    return [...history.slice(0, -1), { at: last.at, bytesPerSecond }];
  }
  const cutoff = at - HISTORY_SECONDS * 1000;
  const kept = history[0] && history[0].at < cutoff ? history.filter((s) => s.at >= cutoff) : history;
  return [...kept, { at, bytesPerSecond }];
}

/** The pages covering rows [start, end). */
export function pagesFor(start: number, end: number): number[] {
  if (end <= start) return [];
  const first = Math.floor(start / PAGE_SIZE);
  const last = Math.floor((end - 1) / PAGE_SIZE);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** The id shown at a list position, when its page is held. */
export function idAt(state: TransfersState, index: number): number | undefined {
  return state.pages[Math.floor(index / PAGE_SIZE)]?.[index % PAGE_SIZE];
}

export function toQuery(filters: TransferFilters): TransferQuery {
  return {
    states: filters.states.length ? filters.states : undefined,
    accountId: filters.accountId ?? undefined,
    source: filters.source ?? undefined,
    rootId: filters.rootId ?? undefined,
    text: filters.text.trim() || undefined,
    sort: filters.sort,
  };
}

export function selection(state: TransfersState): TransferSelection {
  return state.allSelected ? { all: true } : { ids: state.selected };
}

/**
 * A click on the row at `index` (pure): alone it selects that row; `toggle` (Ctrl/Cmd) adds
 * or removes it; `range` (Shift) selects from the anchor to it (rows of pages not held are
 * left out: they are not on screen).
 */
export function clickRow(
  state: TransfersState,
  index: number,
  mode: { toggle?: boolean; range?: boolean },
): Pick<TransfersState, 'selected' | 'allSelected' | 'anchor'> {
  const id = idAt(state, index);
  if (id === undefined) return { selected: state.selected, allSelected: state.allSelected, anchor: state.anchor };
  if (mode.range && state.anchor !== null) {
    const [from, to] = state.anchor < index ? [state.anchor, index] : [index, state.anchor];
    const ids: number[] = [];
    for (let i = from; i <= to; i++) {
      const at = idAt(state, i);
      if (at !== undefined) ids.push(at);
    }
    return { selected: ids, allSelected: false, anchor: state.anchor };
  }
  if (mode.toggle) {
    const selected = state.selected.includes(id) ? state.selected.filter((x) => x !== id) : [...state.selected, id];
    return { selected, allSelected: false, anchor: index };
  }
  return { selected: [id], allSelected: false, anchor: index };
}

export type BulkVerb = 'pause' | 'resume' | 'cancel' | 'retry' | 'remove';

export function actions(ctx: SliceContext<TransfersState>) {
  /** Fetches the given pages (all of them again when `force`), then drops pages far from the window. */
  const fetchPages = async (pages: number[], force: boolean): Promise<void> => {
    const s = ctx.get();
    const wanted = pages.filter((p) => !s.loading.includes(p) && (force || !s.pages[p]));
    if (wanted.length === 0) return;
    const filters = s.filters;
    ctx.set((st) => ({ loading: [...st.loading, ...wanted] }));
    await Promise.all(
      wanted.map(async (page) => {
        const res = await callSafely(ctx.bridge, 'transfers.list', {
          ...toQuery(filters),
          offset: page * PAGE_SIZE,
          limit: PAGE_SIZE,
        });
        ctx.set((st) => {
          const loading = st.loading.filter((p) => p !== page);
          if (st.filters !== filters) return { loading }; // The filters changed meanwhile: a stale answer.
          if (!res.ok) return { loading };
          return {
            loading,
            loaded: true,
            ...mergePage(st, page, res.value.rows),
            total: res.value.total,
            totals: shallow(st.totals, res.value.totals) ? st.totals : res.value.totals,
          };
        });
        if (!res.ok) ctx.report(res.error, 'transfers.list');
      }),
    );
    ctx.set((st) => prune(st));
  };

  const refresh = async (): Promise<void> => {
    const [start, end] = ctx.get().visible;
    ctx.set({ stale: false });
    await fetchPages(pagesFor(start, Math.max(end, start + 1)), true);
  };

  const setFilters = async (patch: Partial<TransferFilters>): Promise<void> => {
    ctx.set((st) => ({ filters: { ...st.filters, ...patch }, pages: {}, rows: {}, selected: [], allSelected: false }));
    await refresh();
  };

  const bulk = async (verb: BulkVerb, which: TransferSelection = selection(ctx.get())): Promise<number> => {
    const res = await callSafely(ctx.bridge, `transfers.${verb}`, which);
    if (!res.ok) {
      ctx.report(res.error, `transfers.${verb}`);
      return 0;
    }
    if (verb === 'remove') ctx.set({ selected: [], allSelected: false });
    ctx.set({ stale: true });
    await refresh();
    return res.value.count;
  };

  const openDetail = async (id: number | null): Promise<void> => {
    ctx.set({ detailId: id, detail: null });
    if (id === null) return;
    const res = await callSafely(ctx.bridge, 'transfers.get', { id });
    if (!res.ok) return ctx.report(res.error, 'transfers.get');
    if (ctx.get().detailId === id) ctx.set({ detail: res.value });
  };

  return {
    /** The list shows rows [start, end): fetch the pages it lacks. */
    setVisible: async (start: number, end: number): Promise<void> => {
      ctx.set({ visible: [start, end] });
      await fetchPages(pagesFor(start, Math.max(end, start + 1)), false);
    },
    refresh,
    setFilters,
    bulk,
    select: (ids: number[]) => ctx.set({ selected: ids, allSelected: false }),
    click: (index: number, mode: { toggle?: boolean; range?: boolean }) => ctx.set((s) => clickRow(s, index, mode)),
    selectAll: () => ctx.set({ selected: [], allSelected: true }),
    clearSelection: () => ctx.set({ selected: [], allSelected: false }),
    /** Opens the details of the row at a list position (when its page is held). */
    openRow: (index: number): void => {
      const id = idAt(ctx.get(), index);
      if (id !== undefined) void openDetail(id);
    },
    openDetail,
    /** Fetches the open detail again (its blocks move while it uploads). */
    reloadDetail: async (): Promise<void> => {
      const id = ctx.get().detailId;
      if (id === null) return;
      const res = await callSafely(ctx.bridge, 'transfers.get', { id });
      if (res.ok && ctx.get().detailId === id) ctx.set({ detail: res.value });
    },
    /**
     * Files dropped on the window: their local paths when the door knows them, else ask for
     * paths. `folder`: the drop is that one folder (its File and name), which the dialog offers
     * to watch as well as to upload once.
     */
    dropFiles: async (
      files: unknown[],
      collect: () => Promise<StagedFile[]>,
      folder: { name: string; file: unknown } | null = null,
    ): Promise<void> => {
      const paths = files.map((f) => ctx.bridge.pathForFile(f)).filter((p) => p !== '');
      const dropped = folder ? { name: folder.name, path: ctx.bridge.pathForFile(folder.file) || null } : null;
      if (paths.length === files.length || !ctx.bridge.stageFiles) {
        ctx.set({ adding: { paths, noPath: paths.length < files.length, staged: [], folder: dropped } });
        return;
      }
      // A browser: the files themselves go to the door.
      ctx.set({ adding: { paths: [], noPath: false, staged: await collect(), folder: dropped } });
    },
    openAdd: () => ctx.set({ adding: { paths: [], noPath: false, staged: [], folder: null } }),
    closeAdd: () => ctx.set({ adding: null }),
    /**
     * Queues the paths, or sends the staged files of a browser drop. Once per dialog: while an
     * add runs (`addProgress`), another call answers null and sends nothing.
     */
    add: async (paths: string[], bucket: string, prefix: string) => {
      if (ctx.get().addProgress !== null) return null;
      const target = { bucket, prefix: prefix || undefined };
      const staged = ctx.get().adding?.staged ?? [];
      const viaStaging = staged.length > 0 && ctx.bridge.stageFiles !== undefined;
      const total = viaStaging ? staged.length : paths.length;
      ctx.set((s) => ({ addProgress: { done: 0, total }, adding: s.adding && withoutError(s.adding) }));
      const onProgress = (done: number) => ctx.set({ addProgress: { done, total } });
      let res;
      try {
        res =
          viaStaging && ctx.bridge.stageFiles
            ? await ctx.bridge.stageFiles(staged, target, onProgress).catch((err: unknown) => ({
                ok: false as const,
                error: { code: 'bridge-closed' as const, message: String(err), params: {} },
              }))
            : await callSafely(ctx.bridge, 'transfers.add', { paths, target });
      } finally {
        ctx.set({ addProgress: null });
      }
      if (!res.ok) {
        const error = res.error;
        // Said in the dialog that made the add; with the dialog gone meanwhile, in a toast.
        if (ctx.get().adding) ctx.set((s) => ({ adding: s.adding && { ...s.adding, error } }));
        else ctx.report(error, 'transfers.add');
        return null;
      }
      ctx.set({ stale: true, adding: null });
      // A file left out (a name that cannot be a key, an unreadable file…) has no row: the
      // person is told which one and why (the service's reason, the CLI's words).
      const skipped = res.value.skipped;
      if (skipped.length > 0) {
        const files = skipped.map((s) => `"${printable(s.path)}" (${s.reason})`).join('; ');
        ctx.report(
          { code: 'files-not-added', message: `Not added: ${files}`, params: { files } },
          'transfers.addSkipped',
        );
      }
      void refresh();
      return res.value;
    },
  };
}

export type TransfersActions = ReturnType<typeof actions>;

function prune(state: TransfersState): Partial<TransfersState> {
  const [start, end] = state.visible;
  const first = Math.floor(start / PAGE_SIZE) - KEEP_PAGES;
  const last = Math.floor(Math.max(end - 1, start) / PAGE_SIZE) + KEEP_PAGES;
  const far = Object.keys(state.pages)
    .map(Number)
    .filter((p) => p < first || p > last);
  if (far.length === 0) return {};
  const pages = { ...state.pages };
  for (const p of far) delete pages[p];
  const keep = new Set(Object.values(pages).flat());
  if (state.detailId !== null) keep.add(state.detailId);
  const rows: Record<number, TransferView> = {};
  for (const id of keep) {
    const row = state.rows[id];
    if (row) rows[id] = row;
  }
  return { pages, rows };
}

function withoutError<T extends { error?: UiError }>(adding: T): Omit<T, 'error'> {
  const { error: _error, ...rest } = adding;
  return rest;
}
