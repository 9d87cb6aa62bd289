import { describe, expect, it } from 'vitest';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { guardLeaving, type LeavingWindow } from '../../../src-renderer/leave-guard';
import { createAppStore } from '../../../src-renderer/store/store';
import type { Decision } from '../../../src-renderer/store/vca-decisions';
import { PRELOAD_GLOBAL, type PreloadApi } from '../../../src-main/shared/wire';

/** The browser's BeforeUnloadEvent: cancelable, with a settable string returnValue (Node's Event has a boolean getter). */
function beforeUnload(): Event & { returnValue: unknown } {
  const e = new Event('beforeunload', { cancelable: true });
  Object.defineProperty(e, 'returnValue', { value: '', writable: true });
  return e as Event & { returnValue: unknown };
}

const decision = (id: number, state: Decision['state']): Decision => ({
  id,
  jobId: 1,
  kind: 'decide',
  changes: [{ labelId: 100 + id, decision: 'accepted', correctedText: null }],
  state,
});

/** A page: a window (desktop: with the preload global, whose reports are recorded) and the app's store. */
function page(desktop: boolean) {
  const reported: number[] = [];
  const preload: PreloadApi = {
    invoke: () => Promise.resolve({ ok: true, value: undefined }),
    subscribe: () => () => undefined,
    pathForFile: () => '',
    reportUnsent: (n) => reported.push(n),
  };
  const win = Object.assign(new EventTarget(), desktop ? { [PRELOAD_GLOBAL]: preload } : {});
  const app = createAppStore(fakeBridge({}));
  const stop = guardLeaving(win as unknown as LeavingWindow, app.store);
  const setDecisions = (decisions: Decision[]) => app.store.setState((s) => ({ vca: { ...s.vca, decisions } }));
  /** The beforeunload event as the page's handler left it. */
  const leave = () => {
    const e = beforeUnload();
    win.dispatchEvent(e);
    return e;
  };
  /** Whether the page refuses to unload now (the browser or Electron would ask). */
  const refuses = () => leave().defaultPrevented;
  return { reported, setDecisions, leave, refuses, stop };
}

describe('leaving the page with review decisions not saved', () => {
  it('the desktop page refuses to unload while a decision is queued or in flight, and reports how many', () => {
    const p = page(true);
    expect(p.refuses()).toBe(false);
    p.setDecisions([decision(1, 'sending'), decision(2, 'queued')]);
    expect(p.refuses()).toBe(true);
    // Electron cancels more reliably with returnValue set as well (its BrowserWindow 'close' note).
    expect(p.leave().returnValue).toBe('Review decisions are still being saved.');
    p.setDecisions([decision(2, 'sending')]);
    expect(p.refuses()).toBe(true);
    // A failed decision is shown as failed on its label (Retry): it does not hold the window.
    p.setDecisions([decision(2, 'failed')]);
    expect(p.refuses()).toBe(false);
    // Each change of the count once, for the main process to name it when it asks.
    p.setDecisions([decision(2, 'failed')]);
    expect(p.reported).toEqual([2, 1, 0]);
    p.stop();
    p.setDecisions([decision(3, 'queued')]);
    expect(p.refuses()).toBe(false);
    expect(p.reported).toEqual([2, 1, 0]);
  });

  it('a browser tab (the headless door) refuses the same way, and has no preload to report to', () => {
    const p = page(false);
    expect(p.refuses()).toBe(false);
    p.setDecisions([decision(1, 'queued')]);
    expect(p.refuses()).toBe(true);
    p.setDecisions([]);
    expect(p.refuses()).toBe(false);
  });
});
