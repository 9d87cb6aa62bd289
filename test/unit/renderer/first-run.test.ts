import { afterEach, describe, expect, it } from 'vitest';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { FIRST_RUN_DISMISSED_KEY, type KeyValueStorage } from '../../../src-renderer/store/app';
import { createAppStore } from '../../../src-renderer/store/store';

/** The page's localStorage, as a browser keeps it across reloads (Node has none). */
function fakeStorage(): KeyValueStorage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

const g = globalThis as { localStorage?: KeyValueStorage };
afterEach(() => {
  delete g.localStorage;
});

describe('the first-run panel', () => {
  it('stays dismissed after "Got it" when the page is loaded again (a new store over the same storage)', () => {
    g.localStorage = fakeStorage();
    const first = createAppStore(fakeBridge({}));
    expect(first.store.getState().app.firstRunDismissed).toBe(false);
    first.actions.app.dismissFirstRun();
    expect(first.store.getState().app.firstRunDismissed).toBe(true);
    first.dispose();
    expect(g.localStorage.getItem(FIRST_RUN_DISMISSED_KEY)).toBe('1');
    const reloaded = createAppStore(fakeBridge({}));
    expect(reloaded.store.getState().app.firstRunDismissed).toBe(true);
    reloaded.dispose();
  });

  it('still works where there is no storage or it refuses (dismissed for this page only)', () => {
    const none = createAppStore(fakeBridge({}));
    none.actions.app.dismissFirstRun();
    expect(none.store.getState().app.firstRunDismissed).toBe(true);
    none.dispose();
    g.localStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    const refused = createAppStore(fakeBridge({}));
    expect(refused.store.getState().app.firstRunDismissed).toBe(false);
    refused.actions.app.dismissFirstRun();
    expect(refused.store.getState().app.firstRunDismissed).toBe(true);
    refused.dispose();
  });
});
