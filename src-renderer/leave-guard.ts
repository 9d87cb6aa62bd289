/**
 * Review decisions still waiting to be sent or answered (the service slow or unreachable) live
 * only in this page: leaving it would lose them without a word. So the page refuses to unload
 * while it holds any (`beforeunload`): in a browser tab (the headless door) the browser asks
 * before a reload or a closed tab; in the desktop window the main process hears the refusal
 * and asks with its own question (src-main/electron/close-guard.ts), naming how many there
 * are, which the page reports through the preload each time the number changes. Hiding the
 * desktop window to the tray never unloads the page, so it never asks.
 */
import type { StoreApi } from 'zustand';
import { PRELOAD_GLOBAL, type PreloadApi } from '../src-main/shared/wire';
import type { AppState } from './store/store';
import { unsentCount } from './store/vca-decisions';

/** The part of a page's `window` this needs (the page's own; a test's EventTarget). */
export interface LeavingWindow {
  addEventListener(type: 'beforeunload', listener: (e: LeaveEvent) => void): void;
  removeEventListener(type: 'beforeunload', listener: (e: LeaveEvent) => void): void;
}
/** BeforeUnloadEvent as used here. */
export interface LeaveEvent {
  preventDefault(): void;
  returnValue: unknown;
}

/** Guards `win` against leaving with unsaved decisions; returns the function that stops it. */
export function guardLeaving(win: LeavingWindow, store: StoreApi<AppState>): () => void {
  const unsent = () => unsentCount(store.getState().vca.decisions);
  const onBeforeUnload = (e: LeaveEvent) => {
    if (unsent() === 0) return;
    e.preventDefault();
    // Electron's documentation: set returnValue too, which cancels there more reliably.
    e.returnValue = 'Review decisions are still being saved.';
  };
  win.addEventListener('beforeunload', onBeforeUnload);
  const preload = (win as unknown as Record<string, PreloadApi | undefined>)[PRELOAD_GLOBAL];
  let reported = 0;
  const report = () => {
    const n = unsent();
    if (n === reported) return;
    reported = n;
    preload?.reportUnsent(n);
  };
  const unsubscribe = preload ? store.subscribe(report) : () => undefined;
  if (preload) report();
  return () => {
    win.removeEventListener('beforeunload', onBeforeUnload);
    unsubscribe();
  };
}
