import { describe, expect, it } from 'vitest';
import { DesktopStatus, tooltip, trayStatus } from '../../../src-main/electron/desktop-status';
import { formatSpeed } from '../../../src-main/common/units';
import type { AppEvents, Settings, TransferTotals, TransferView } from '../../../src-main/shared/contract';

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
const totals = (t: Partial<TransferTotals>): TransferTotals => ({ ...zero, ...t });

function row(id: number, state: TransferView['state'], message?: string): TransferView {
  return {
    id,
    accountId: 1,
    bucket: 'b',
    key: `k${id}`,
    localPath: `/tmp/k${id}`,
    size: 100,
    state,
    source: 'manual',
    bytesDone: 0,
    speed: 0,
    etaSeconds: null,
    etag: null,
    lastError: message ? { code: 'service-error', message } : null,
    warning: null,
    createdAt: 0,
    updatedAt: 0,
    rootId: null,
    pausedBy: null,
    attempts: 1,
    verified: false,
    remoteHash: null,
    persistentId: null,
    copiedFrom: null,
  };
}

function transfers(p: Partial<AppEvents['transfers']>): { name: 'transfers'; payload: AppEvents['transfers'] } {
  return {
    name: 'transfers',
    payload: { changed: [], removed: [], progress: [], totals: zero, throughput: 0, ...p },
  };
}

const settings = (s: Partial<Settings>): Settings =>
  ({ notifications: { batchFinished: true, failures: true }, keepAwake: false, ...s }) as Settings;

describe('tray status', () => {
  it('is idle, uploading N at a speed, paused or error from the totals', () => {
    expect(trayStatus(null, 0)).toEqual({ kind: 'idle' });
    expect(trayStatus(totals({ done: 5 }), 0)).toEqual({ kind: 'idle' });
    expect(trayStatus(totals({ uploading: 2, queued: 1, paused: 4 }), 5e6)).toEqual({
      kind: 'uploading',
      count: 3,
      bytesPerSecond: 5e6,
    });
    expect(trayStatus(totals({ paused: 4, failed: 1 }), 0)).toEqual({ kind: 'paused', count: 4 });
    expect(trayStatus(totals({ failed: 2, done: 3 }), 0)).toEqual({ kind: 'error', failed: 2 });
    // The window's formatter (1 MB = 1,024 KB): 12,345,678 B/s is 11.8 MB/s in the tray as in the window.
    expect(tooltip(trayStatus(totals({ uploading: 1 }), 12_345_678))).toBe(
      `Blocklift — uploading 1 at ${formatSpeed(12_345_678)}`,
    );
    expect(formatSpeed(12_345_678)).toBe('11.8 MB/s');
    expect(formatSpeed(999)).toBe('999 B/s');
  });

  it('follows a sequence of batches: tooltip, taskbar progress, pause/resume menu, keep-awake', () => {
    const s = new DesktopStatus(settings({ keepAwake: true }));
    expect(s.view()).toMatchObject({ tooltip: 'Blocklift — idle', progress: -1, keepAwake: false });
    s.apply(
      transfers({
        totals: totals({ uploading: 2 }),
        throughput: 2 * 1024 * 1024,
        progress: [
          { id: 1, bytesDone: 50, size: 100, speed: 1, etaSeconds: 1 },
          { id: 2, bytesDone: 0, size: 300, speed: 1, etaSeconds: 1 },
        ],
      }),
    );
    expect(s.view()).toEqual({
      tray: { kind: 'uploading', count: 2, bytesPerSecond: 2 * 1024 * 1024 },
      tooltip: 'Blocklift — uploading 2 at 2.0 MB/s',
      progress: 50 / 400,
      keepAwake: true,
      canPause: true,
      canResume: false,
    });
    s.apply(transfers({ changed: [row(1, 'paused'), row(2, 'paused')], totals: totals({ paused: 2 }) }));
    expect(s.view()).toMatchObject({
      tooltip: 'Blocklift — paused (2)',
      progress: -1,
      keepAwake: false,
      canResume: true,
    });
    s.apply({ name: 'settings', payload: settings({ keepAwake: false }) });
    s.apply(
      transfers({
        totals: totals({ uploading: 1 }),
        progress: [{ id: 1, bytesDone: 90, size: 100, speed: 1, etaSeconds: 0 }],
      }),
    );
    expect(s.view()).toMatchObject({ progress: 0.9, keepAwake: false });
  });
});

describe('notifications', () => {
  it('one when a batch finishes, saying what failed', () => {
    const s = new DesktopStatus(settings({}));
    expect(s.apply({ name: 'batchFinished', payload: { done: 3, failed: 1, skipped: 0, canceled: 2 } })).toEqual([
      { title: 'Uploads finished with failures', body: '3 uploaded, 1 failed, 2 canceled' },
    ]);
    expect(s.apply({ name: 'batchFinished', payload: { done: 3, failed: 0, skipped: 0, canceled: 0 } })).toEqual([
      { title: 'Uploads finished', body: '3 uploaded' },
    ]);
  });

  it('one per transfer failing for good, once per failure (again after a retry fails again)', () => {
    const s = new DesktopStatus(settings({}));
    const failed = transfers({
      changed: [row(7, 'failed', 'The service answered 599')],
      totals: totals({ failed: 1 }),
    });
    expect(s.apply(failed)).toEqual([{ title: 'Upload failed', body: 'k7: The service answered 599' }]);
    expect(s.apply(failed)).toEqual([]);
    expect(s.apply(transfers({ changed: [row(7, 'queued')], totals: totals({ queued: 1 }) }))).toEqual([]);
    expect(s.apply(failed)).toHaveLength(1);
  });

  it('none when the settings turn them off', () => {
    const s = new DesktopStatus(settings({ notifications: { batchFinished: false, failures: false } }));
    expect(s.apply({ name: 'batchFinished', payload: { done: 1, failed: 0, skipped: 0, canceled: 0 } })).toEqual([]);
    expect(s.apply(transfers({ changed: [row(1, 'failed', 'x')] }))).toEqual([]);
  });
});
