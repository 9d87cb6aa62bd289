/**
 * The app slice: what the door says about itself (status, first run), the screen shown,
 * the connection, and the notices the other slices report (errors of calls, problems the
 * app met on its own, finished batches), shown as toasts until dismissed.
 */
import type { AppEvents, AppStatus } from '../../src-main/shared/contract';
import { callSafely, type BridgeConnection, type UiError } from '../bridge/bridge';
import type { SliceContext } from './slice';

export const SCREENS = ['transfers', 'folders', 'tasks', 'vca', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export type Notice =
  | { id: number; kind: 'error'; error: UiError; context: string }
  | { id: number; kind: 'problem'; error: UiError; at: number; rootId?: number; transferId?: number }
  | { id: number; kind: 'batch'; counts: AppEvents['batchFinished'] };

/** At most this many notices are kept; older ones drop off (5,000 failures must not make 5,000 toasts). */
export const MAX_NOTICES = 20;

export interface AppSliceState {
  status: AppStatus | null;
  screen: Screen;
  connection: BridgeConnection;
  notices: Notice[];
  nextNoticeId: number;
  firstRunDismissed: boolean;
}

/**
 * The first-run panel's "Got it", kept in this browser's (or window's) local storage: without
 * it the panel came back on every reload until the first transfer. Read and written with
 * care: storage may be missing (tests under Node) or refused (a locked-down browser).
 */
export const FIRST_RUN_DISMISSED_KEY = 'blocklift.firstRunDismissed';

/** What of the DOM's Storage is used (the store also runs under Node, in tests). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function storage(): KeyValueStorage | null {
  try {
    return (globalThis as { localStorage?: KeyValueStorage }).localStorage ?? null;
  } catch {
    return null;
  }
}

function firstRunDismissedStored(): boolean {
  try {
    return storage()?.getItem(FIRST_RUN_DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
}

function storeFirstRunDismissed(): void {
  try {
    storage()?.setItem(FIRST_RUN_DISMISSED_KEY, '1');
  } catch {
    // Storage refused (full, or blocked): the panel stays dismissed until the page reloads.
  }
}

export function initial(): AppSliceState {
  return {
    status: null,
    screen: 'transfers',
    connection: 'connecting',
    notices: [],
    nextNoticeId: 1,
    firstRunDismissed: firstRunDismissedStored(),
  };
}

/** A notice before it gets its id. */
export type NoticeInput = Notice extends infer N ? (N extends Notice ? Omit<N, 'id'> : never) : never;

const errorOf = (n: NoticeInput | Notice): UiError | null => ('error' in n ? n.error : null);

/** Pure: adds a notice, dropping the oldest past MAX_NOTICES and an earlier one with the same error. */
export function addNotice(state: AppSliceState, notice: NoticeInput): AppSliceState {
  const id = state.nextNoticeId;
  const error = errorOf(notice);
  const same = (n: Notice) => {
    const other = errorOf(n);
    return error !== null && other !== null && other.code === error.code && other.message === error.message;
  };
  const notices = [...state.notices.filter((n) => !same(n)), { ...notice, id } as Notice].slice(-MAX_NOTICES);
  return { ...state, notices, nextNoticeId: id + 1 };
}

export function applyProblems(state: AppSliceState, batch: AppEvents['problems']): AppSliceState {
  return batch.problems.reduce(
    (s, p) =>
      addNotice(s, {
        kind: 'problem',
        error: { code: p.code as UiError['code'], message: p.message, params: p.params },
        at: p.at,
        // Where it happened: a watched folder's problem is fixed on the Folders screen.
        ...(p.rootId !== undefined ? { rootId: p.rootId } : {}),
        ...(p.transferId !== undefined ? { transferId: p.transferId } : {}),
      }),
    state,
  );
}

/**
 * A finished batch: one "Uploads finished" notice at a time. A batch that ends while an
 * earlier one's notice is still up replaces it with the counts of both (three drops in a row
 * stacked three toasts over half an 800×600 window, each with its own part of the count).
 */
export function applyBatchFinished(state: AppSliceState, counts: AppEvents['batchFinished']): AppSliceState {
  const shown = state.notices.find((n): n is Extract<Notice, { kind: 'batch' }> => n.kind === 'batch');
  if (!shown) return addNotice(state, { kind: 'batch', counts });
  const sum = {
    done: shown.counts.done + counts.done,
    failed: shown.counts.failed + counts.failed,
    skipped: shown.counts.skipped + counts.skipped,
    canceled: shown.counts.canceled + counts.canceled,
  };
  return addNotice({ ...state, notices: state.notices.filter((n) => n !== shown) }, { kind: 'batch', counts: sum });
}

export function actions(ctx: SliceContext<AppSliceState>) {
  return {
    loadStatus: async (): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'app.status', undefined);
      if (!res.ok) return ctx.report(res.error, 'app.status');
      ctx.set({ status: res.value });
    },
    go: (screen: Screen) => ctx.set({ screen }),
    dismiss: (id: number) => ctx.set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
    dismissFirstRun: () => {
      storeFirstRunDismissed();
      ctx.set({ firstRunDismissed: true });
    },
    openDataFolder: async (): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'app.openDataFolder', undefined);
      if (!res.ok) ctx.report(res.error, 'app.openDataFolder');
    },
  };
}

export type AppActions = ReturnType<typeof actions>;
