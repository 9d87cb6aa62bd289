/**
 * How components reach the store: `useApp(selector)` reads (re-rendering only when the
 * selected value changes; use `useShallow` for an object), `useActions()` gives the actions.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppActions, AppState, AppStore } from './store';

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ app, children }: { app: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={app}>{children}</StoreContext.Provider>;
}

function useAppStore(): AppStore {
  const app = useContext(StoreContext);
  if (!app) throw new Error('useApp outside StoreProvider');
  return app;
}

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStore().store, selector);
}

export function useActions(): AppActions {
  return useAppStore().actions;
}
