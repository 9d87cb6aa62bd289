/**
 * The one store: a zustand store of slices (transfers, folders, tasks, vca, settings, app).
 * Pushed event batches go through each slice's pure `apply`; the slices' actions are the only
 * code that calls the bridge. Screens read state with selectors (`useApp`) and call
 * `useActions()`.
 *
 * Contract: `createAppStore` subscribes to every event at once; `start()` loads what each
 * screen needs first; `dispose()` unsubscribes. A transfers batch that may have moved rows
 * in or out of the filtered list refetches the visible pages, at most once a second.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Bridge, UiError } from '../bridge/bridge';
import * as app from './app';
import * as folders from './folders';
import * as settings from './settings';
import type { SliceContext } from './slice';
import * as tasks from './tasks';
import * as transfers from './transfers';
import * as vca from './vca';

export interface AppState {
  transfers: transfers.TransfersState;
  folders: folders.FoldersState;
  tasks: tasks.TasksState;
  vca: vca.VcaState;
  settings: settings.SettingsState;
  app: app.AppSliceState;
}

export interface AppActions {
  transfers: transfers.TransfersActions;
  folders: folders.FoldersActions;
  tasks: tasks.TasksActions;
  vca: vca.VcaActions;
  settings: settings.SettingsActions;
  app: app.AppActions;
}

export interface AppStore {
  store: StoreApi<AppState>;
  actions: AppActions;
  bridge: Bridge;
  /** Loads the status, settings, accounts and the first lists. */
  start(): Promise<void>;
  dispose(): void;
}

export function initialState(): AppState {
  return {
    transfers: transfers.initial(),
    folders: folders.initial(),
    tasks: tasks.initial(),
    vca: vca.initial(),
    settings: settings.initial(),
    app: app.initial(),
  };
}

export function createAppStore(bridge: Bridge, options: { now?: () => number; refreshMs?: number } = {}): AppStore {
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 1000;
  const store = createStore<AppState>()(() => initialState());

  const report = (error: UiError, context: string) =>
    store.setState((s) => ({ app: app.addNotice(s.app, { kind: 'error', error, context }) }));
  const context = <K extends keyof AppState>(key: K): SliceContext<AppState[K]> => ({
    bridge,
    report,
    get: () => store.getState()[key],
    set: (patch) =>
      store.setState((s) => {
        const part = typeof patch === 'function' ? patch(s[key]) : patch;
        return { [key]: { ...s[key], ...part } } as unknown as Partial<AppState>;
      }),
  });

  const actions: AppActions = {
    transfers: transfers.actions(context('transfers')),
    folders: folders.actions(context('folders')),
    tasks: tasks.actions(context('tasks')),
    vca: vca.actions(context('vca')),
    settings: settings.actions(context('settings')),
    app: app.actions(context('app')),
  };

  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  let lastRefresh = 0;
  const refreshSoon = () => {
    if (refreshTimer) return;
    const wait = Math.max(0, lastRefresh + refreshMs - now());
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      lastRefresh = now();
      if (store.getState().transfers.stale) void actions.transfers.refresh();
    }, wait);
  };

  const off = [
    bridge.on('transfers', (batch) => {
      store.setState((s) => ({ transfers: transfers.apply(s.transfers, batch, now()) }));
      if (store.getState().transfers.stale) refreshSoon();
    }),
    bridge.on('roots', (batch) => store.setState((s) => ({ folders: folders.apply(s.folders, batch) }))),
    bridge.on('fmgr', (batch) => store.setState((s) => ({ tasks: tasks.apply(s.tasks, batch) }))),
    bridge.on('vca', (batch) => store.setState((s) => ({ vca: vca.apply(s.vca, batch) }))),
    bridge.on('settings', (value) => store.setState((s) => ({ settings: settings.applySettings(s.settings, value) }))),
    bridge.on('accounts', (value) => store.setState((s) => ({ settings: settings.applyAccounts(s.settings, value) }))),
    bridge.on('problems', (batch) => store.setState((s) => ({ app: app.applyProblems(s.app, batch) }))),
    bridge.on('batchFinished', (counts) => store.setState((s) => ({ app: app.applyBatchFinished(s.app, counts) }))),
    bridge.onConnection((connection) => {
      store.setState((s) => ({ app: { ...s.app, connection } }));
      // After a reconnect the pushed batches missed meanwhile are lost: load again.
      if (connection === 'open' && started) void start();
    }),
  ];
  store.setState((s) => ({ app: { ...s.app, connection: bridge.connection() } }));

  let started = false;
  const start = async (): Promise<void> => {
    started = true;
    await Promise.all([
      actions.app.loadStatus(),
      actions.settings.load(),
      actions.transfers.refresh(),
      actions.folders.load(),
      actions.tasks.load(),
      actions.vca.load(),
    ]);
  };

  return {
    store,
    actions,
    bridge,
    start,
    dispose: () => {
      for (const f of off) f();
      if (refreshTimer) clearTimeout(refreshTimer);
    },
  };
}
