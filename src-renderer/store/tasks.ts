/**
 * The tasks slice: Fmgr tasks the app follows, patched by pushed batches, with the history
 * of states of the task opened in the detail panel.
 */
import type { AppEvents, FmgrStatusSnapshot, FmgrSubmitInput } from '../../src-main/shared/contract';
import type { FmgrTaskView } from '../../src-main/shared/task-views';
import { callSafely } from '../bridge/bridge';
import type { SliceContext } from './slice';

export interface TasksState {
  tasks: FmgrTaskView[];
  loaded: boolean;
  openId: number | null;
  history: FmgrStatusSnapshot[];
}

export function initial(): TasksState {
  return { tasks: [], loaded: false, openId: null, history: [] };
}

/** Newest first: the list order the screen shows. */
function sorted(tasks: FmgrTaskView[]): FmgrTaskView[] {
  return [...tasks].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
}

export function apply(state: TasksState, batch: AppEvents['fmgr']): TasksState {
  if (batch.changed.length === 0) return state;
  const changed = new Map(batch.changed.map((t) => [t.id, t]));
  const kept = state.tasks.filter((t) => !changed.has(t.id));
  return { ...state, tasks: sorted([...kept, ...batch.changed]) };
}

export function actions(ctx: SliceContext<TasksState>) {
  const put = (task: FmgrTaskView) => ctx.set((s) => apply(s, { changed: [task] }));
  return {
    load: async (): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'fmgr.list', { limit: 500 });
      if (!res.ok) return ctx.report(res.error, 'fmgr.list');
      ctx.set({ tasks: sorted(res.value), loaded: true });
    },
    submit: async (input: FmgrSubmitInput): Promise<FmgrTaskView | null> => {
      const res = await callSafely(ctx.bridge, 'fmgr.submit', input);
      if (!res.ok) {
        ctx.report(res.error, 'fmgr.submit');
        return null;
      }
      put(res.value);
      return res.value;
    },
    track: async (persistentId: string): Promise<FmgrTaskView | null> => {
      const res = await callSafely(ctx.bridge, 'fmgr.track', { persistentId });
      if (!res.ok) {
        ctx.report(res.error, 'fmgr.track');
        return null;
      }
      put(res.value);
      return res.value;
    },
    open: async (id: number | null): Promise<void> => {
      ctx.set({ openId: id, history: [] });
      if (id === null) return;
      const res = await callSafely(ctx.bridge, 'fmgr.get', { id });
      if (!res.ok) return ctx.report(res.error, 'fmgr.get');
      if (ctx.get().openId === id) ctx.set({ history: res.value.history });
    },
  };
}

export type TasksActions = ReturnType<typeof actions>;
