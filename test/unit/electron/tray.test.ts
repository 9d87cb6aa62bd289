import { describe, expect, it, vi } from 'vitest';
import type { DoorBackend } from '../../../src-main/service/door-backend';
import type { AppEventMessage, TransferTotals } from '../../../src-main/shared/contract';
import { fakeElectron } from './fake-electron';

vi.mock('electron', () => fakeElectron);

const { startTray } = await import('../../../src-main/electron/tray');

const zero: TransferTotals = {
  queued: 0,
  hashing: 0,
  uploading: 0,
  paused: 0,
  completing: 0,
  done: 0,
  failed: 0,
  canceled: 0,
  skipped: 0,
};

function backendWithEvents() {
  const listeners = new Set<(e: AppEventMessage) => void>();
  const backend = {
    on(l: (e: AppEventMessage) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  } as unknown as DoorBackend;
  const transfers = (t: Partial<TransferTotals>, throughput: number) => {
    const e = {
      name: 'transfers',
      payload: { changed: [], removed: [], progress: [], totals: { ...zero, ...t }, throughput },
    } as unknown as AppEventMessage;
    for (const l of listeners) l(e);
  };
  return { backend, transfers };
}

describe('tray', () => {
  it('rebuilds its menu only when its items change, not when the speed moves (an open menu stays open)', () => {
    const { backend, transfers } = backendWithEvents();
    const tray = startTray({
      backend,
      icon: '/i.png',
      window: () => undefined,
      showWindow: () => undefined,
      quit: () => undefined,
      settings: null,
    });
    const state = fakeElectron.Tray.created.at(-1)!;
    expect(state.menus).toHaveLength(1);
    for (const speed of [1e6, 2.5e6, 3.1e6, 900e3]) transfers({ uploading: 2 }, speed);
    // One rebuild for idle → uploading 2; the four speeds change the tooltip only.
    expect(state.menus).toHaveLength(2);
    expect(state.menus[1]![0]).toMatchObject({ label: 'Uploading 2', enabled: false });
    expect(state.tooltips.length).toBe(5);
    expect(state.tooltips.at(-1)).toMatch(/^Blocklift — uploading 2 at /);
    transfers({ uploading: 3 }, 900e3);
    transfers({ paused: 3 }, 0);
    expect(state.menus.map((m) => m[0]?.label)).toEqual(['Idle', 'Uploading 2', 'Uploading 3', 'Paused (3)']);
    tray.dispose();
  });
});
