import { describe, expect, it } from 'vitest';
import type { AppEvents, TransferQuery } from '../../../src-main/shared/contract';
import { emptyTotals } from '../../../src-main/common/totals';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { createAppStore } from '../../../src-renderer/store/store';
import {
  HISTORY_SECONDS,
  PAGE_SIZE,
  addSample,
  apply,
  idAt,
  initial,
  mergePage,
  pagesFor,
  sameRow,
} from '../../../src-renderer/store/transfers';
import { row } from './fixtures';

const batch = (patch: Partial<AppEvents['transfers']>): AppEvents['transfers'] => ({
  changed: [],
  removed: [],
  progress: [],
  totals: emptyTotals(),
  throughput: 0,
  ...patch,
});

describe('transfers slice: apply', () => {
  const held = { ...initial(), pages: { 0: [1, 2] }, rows: { 1: row(1, 'uploading'), 2: row(2) } };

  it('patches progress of held rows only, without marking the list stale', () => {
    const next = apply(
      held,
      batch({
        progress: [
          { id: 1, bytesDone: 500, size: 1000, speed: 100, etaSeconds: 5 },
          { id: 9, bytesDone: 1, size: 2, speed: 1, etaSeconds: 1 },
        ],
      }),
      10_000,
    );
    expect(next.rows[1]).toMatchObject({ bytesDone: 500, speed: 100, etaSeconds: 5 });
    expect(next.rows[9]).toBeUndefined();
    expect(next.rows[2]).toBe(held.rows[2]);
    expect(next.stale).toBe(false);
  });

  it('marks the list stale when a held row changes state or a new matching row appears', () => {
    expect(apply(held, batch({ changed: [row(2, 'uploading')] }), 0).stale).toBe(true);
    expect(apply(held, batch({ changed: [row(1, 'uploading', { warning: 'slow' })] }), 0).stale).toBe(false);
    expect(apply(held, batch({ changed: [row(3)] }), 0).stale).toBe(true);
    const onlyFailed = { ...held, filters: { ...held.filters, states: ['failed' as const] } };
    expect(apply(onlyFailed, batch({ changed: [row(3, 'queued')] }), 0).stale).toBe(false);
  });

  it('drops removed rows from the rows, the selection and the detail panel', () => {
    const next = apply({ ...held, selected: [1, 2], detailId: 2 }, batch({ removed: [2] }), 0);
    expect(next.rows[2]).toBeUndefined();
    expect(next.selected).toEqual([1]);
    expect(next.detailId).toBeNull();
    expect(next.stale).toBe(true);
  });

  it('takes totals and throughput from the batch and samples throughput once a second', () => {
    const totals = { ...emptyTotals(), uploading: 3 };
    let s = apply(held, batch({ totals, throughput: 100 }), 1_000);
    s = apply(s, batch({ totals, throughput: 300 }), 1_500);
    s = apply(s, batch({ totals, throughput: 200 }), 2_100);
    expect(s.totals.uploading).toBe(3);
    expect(s.throughput).toBe(200);
    expect(s.history).toEqual([
      { at: 1_000, bytesPerSecond: 300 },
      { at: 2_100, bytesPerSecond: 200 },
    ]);
  });

  it('keeps only the last HISTORY_SECONDS of samples', () => {
    let h = addSample([], 0, 1);
    h = addSample(h, HISTORY_SECONDS * 1000 + 1, 2);
    expect(h).toEqual([{ at: HISTORY_SECONDS * 1000 + 1, bytesPerSecond: 2 }]);
  });

  it('maps list positions to pages', () => {
    expect(pagesFor(0, 30)).toEqual([0]);
    expect(pagesFor(PAGE_SIZE - 5, PAGE_SIZE + 5)).toEqual([0, 1]);
    expect(pagesFor(10, 10)).toEqual([]);
    expect(idAt(held, 1)).toBe(2);
    expect(idAt(held, PAGE_SIZE)).toBeUndefined();
  });
});

describe('transfers slice: objects kept when nothing changed (memoized rows skip rendering)', () => {
  const held = { ...initial(), pages: { 0: [1, 2] }, rows: { 1: row(1, 'uploading'), 2: row(2, 'uploading') } };
  const same = { id: 1, bytesDone: 0, size: 1000, speed: 0, etaSeconds: null };

  it('keeps a row whose progress did not move, and the rows record when none did', () => {
    const still = apply(held, batch({ progress: [same, { ...same, id: 2 }] }), 0);
    expect(still.rows).toBe(held.rows);
    const moved = apply(held, batch({ progress: [same, { ...same, id: 2, bytesDone: 10 }] }), 0);
    expect(moved.rows).not.toBe(held.rows);
    expect(moved.rows[1]).toBe(held.rows[1]);
    expect(moved.rows[2]).not.toBe(held.rows[2]);
    expect(moved.rows[2]?.bytesDone).toBe(10);
  });

  it('keeps a changed row equal to the one held (an equal error included), and takes one that differs', () => {
    const failed = { ...held, rows: { ...held.rows, 1: row(1, 'failed', { lastError: { code: 'x', message: 'm' } }) } };
    const again = apply(failed, batch({ changed: [row(1, 'failed', { lastError: { code: 'x', message: 'm' } })] }), 0);
    expect(again.rows).toBe(failed.rows);
    const other = apply(failed, batch({ changed: [row(1, 'failed', { lastError: { code: 'x', message: 'n' } })] }), 0);
    expect(other.rows[1]?.lastError?.message).toBe('n');
    expect(sameRow(row(1), row(1, 'queued', { warning: 'slow' }))).toBe(false);
  });

  it('keeps totals equal to the ones held', () => {
    const totals = { ...emptyTotals(), uploading: 2 };
    const first = apply(held, batch({ totals }), 0);
    expect(apply(first, batch({ totals: { ...totals } }), 0).totals).toBe(first.totals);
    expect(apply(first, batch({ totals: { ...totals, done: 1 } }), 0).totals.done).toBe(1);
  });

  it('merges a fetched page keeping unchanged rows and the same id list', () => {
    const again = mergePage(held, 0, [row(1, 'uploading'), row(2, 'uploading')]);
    expect(again.rows).toBe(held.rows);
    expect(again.pages).toBe(held.pages);
    const next = mergePage(held, 0, [row(1, 'uploading'), row(2, 'done'), row(3)]);
    expect(next.rows[1]).toBe(held.rows[1]);
    expect(next.rows[2]?.state).toBe('done');
    expect(next.pages[0]).toEqual([1, 2, 3]);
  });
});

describe('transfers slice: actions through a bridge', () => {
  /** A service of `n` transfers answering transfers.list by page, newest first. */
  function service(n: number) {
    const all = Array.from({ length: n }, (_, i) => row(n - i));
    return fakeBridge({
      transfers: {
        list: async (q: TransferQuery) => {
          const matching = all.filter((r) => !q.states || q.states.includes(r.state));
          const rows = matching.slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 200));
          return { ok: true, value: { rows, total: matching.length, totals: { ...emptyTotals(), queued: n } } };
        },
        pause: async () => ({ ok: true, value: { count: 2 } }),
      },
    });
  }

  it('fetches only the pages of the visible window, and drops pages far from it', async () => {
    const bridge = service(50_000);
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.setVisible(0, 40);
    expect(bridge.calls.map((c) => c.input)).toEqual([expect.objectContaining({ offset: 0, limit: PAGE_SIZE })]);
    expect(app.store.getState().transfers.total).toBe(50_000);
    await app.actions.transfers.setVisible(25_000, 25_040);
    const s = app.store.getState().transfers;
    expect(Object.keys(s.pages).map(Number)).toEqual([250]);
    expect(Object.keys(s.rows)).toHaveLength(PAGE_SIZE);
    expect(s.rows[idAt(s, 25_000)!]?.id).toBe(25_000);
    app.dispose();
  });

  it('keeps the objects of rows a refetch finds unchanged', async () => {
    const app = createAppStore(service(500), { refreshMs: 0 });
    await app.actions.transfers.setVisible(0, 40);
    const before = app.store.getState().transfers;
    await app.actions.transfers.refresh();
    const after = app.store.getState().transfers;
    expect(after.rows[idAt(after, 0)!]).toBe(before.rows[idAt(before, 0)!]);
    expect(after.pages[0]).toBe(before.pages[0]);
    expect(after.totals).toBe(before.totals);
    app.dispose();
  });

  it('sends the filters with every page and starts over when they change', async () => {
    const bridge = service(10);
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.setVisible(0, 5);
    await app.actions.transfers.setFilters({ states: ['failed'], text: ' x ' });
    expect(bridge.calls.at(-1)?.input).toMatchObject({ states: ['failed'], text: 'x', offset: 0 });
    expect(app.store.getState().transfers.total).toBe(0);
    app.dispose();
  });

  it('sends the selection to a bulk verb, or {all:true} after select all', async () => {
    const bridge = service(10);
    const app = createAppStore(bridge, { refreshMs: 0 });
    app.actions.transfers.select([3, 4]);
    expect(await app.actions.transfers.bulk('pause')).toBe(2);
    app.actions.transfers.selectAll();
    await app.actions.transfers.bulk('pause');
    const pauses = bridge.calls.filter((c) => c.method === 'transfers.pause').map((c) => c.input);
    expect(pauses).toEqual([{ ids: [3, 4] }, { all: true }]);
    app.dispose();
  });

  it('shows a refused verb as a notice with the service error, and a pushed batch refetches the window', async () => {
    const bridge = service(3);
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.bulk('retry');
    const notice = app.store.getState().app.notices.at(-1);
    expect(notice).toMatchObject({ kind: 'error', context: 'transfers.retry', error: { code: 'unknown-method' } });

    await app.actions.transfers.setVisible(0, 3);
    const before = bridge.calls.length;
    bridge.push('transfers', batch({ changed: [row(4)] }));
    await expect.poll(() => bridge.calls.length).toBeGreaterThan(before);
    app.dispose();
  });
});

describe('transfers slice: dropped files', () => {
  it('queues local paths when the door knows them (the desktop app)', async () => {
    const added: unknown[] = [];
    const bridge = fakeBridge(
      {
        transfers: {
          add: async (input) => (
            added.push(input),
            { ok: true, value: { queued: [1], alreadyUploaded: [], skipped: [], bytesQueued: 0 } }
          ),
        },
      },
      { pathForFile: (f) => `/home/me/${(f as { name: string }).name}` },
    );
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.dropFiles([{ name: 'a.jpg' }, { name: 'photos' }], async () => []);
    expect(app.store.getState().transfers.adding).toEqual({
      paths: ['/home/me/a.jpg', '/home/me/photos'],
      noPath: false,
      staged: [],
      folder: null,
    });
    await app.actions.transfers.add(['/home/me/a.jpg', '/home/me/photos'], 'local', 'in/');
    expect(added).toEqual([
      { paths: ['/home/me/a.jpg', '/home/me/photos'], target: { bucket: 'local', prefix: 'in/' } },
    ]);
    expect(app.store.getState().transfers.adding).toBeNull();
    app.dispose();
  });

  it('a dropped file the add left out is named with its reason in a notice (it has no row)', async () => {
    const file = { file: new Blob(['tab']), relPath: 'a\tb.txt' };
    const reason = 'its key cannot be used: the name contains control character U+0009; rename the file';
    const bridge = fakeBridge(
      {},
      {
        stageFiles: async () => ({
          ok: true,
          value: {
            queued: [1, 2, 3, 4],
            alreadyUploaded: [],
            skipped: [{ path: 'a\tb.txt', code: 'key-invalid', reason }],
            bytesQueued: 4,
          },
        }),
      },
    );
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.dropFiles([{ name: 'a\tb.txt' }], async () => [file]);
    await app.actions.transfers.add([], 'local', '');
    const notices = app.store.getState().app.notices;
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      kind: 'error',
      context: 'transfers.addSkipped',
      error: { code: 'files-not-added', params: { files: `"a\\tb.txt" (${reason})` } },
    });
    app.dispose();
  });

  it('sends the files themselves through the door when a browser has no paths', async () => {
    const staged: unknown[] = [];
    const file = { file: new Blob(['hello']), relPath: 'photos/a.txt' };
    const bridge = fakeBridge(
      {},
      {
        stageFiles: async (files, target) => {
          staged.push({ files, target });
          return { ok: true, value: { queued: [9], alreadyUploaded: [], skipped: [], bytesQueued: 0 } };
        },
      },
    );
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.transfers.dropFiles([{ name: 'photos' }], async () => [file]);
    expect(app.store.getState().transfers.adding).toEqual({ paths: [], noPath: false, staged: [file], folder: null });
    const result = await app.actions.transfers.add([], 'local', '');
    expect(result?.queued).toEqual([9]);
    expect(staged).toEqual([{ files: [file], target: { bucket: 'local', prefix: undefined } }]);
    app.dispose();
  });

  it('sends a batch once when "Upload" is pressed twice, and says how many files went so far', async () => {
    const files = ['a.txt', 'b.txt', 'c.txt'].map((relPath) => ({ file: new Blob(['x']), relPath }));
    let sends = 0;
    const progressSeen: Array<{ done: number; total: number } | null> = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const bridge = fakeBridge(
      {},
      {
        stageFiles: async (staged, _target, onProgress) => {
          sends++;
          for (let i = 1; i <= staged.length; i++) onProgress?.(i);
          await held;
          return { ok: true, value: { queued: [1, 2, 3], alreadyUploaded: [], skipped: [], bytesQueued: 3 } };
        },
      },
    );
    const app = createAppStore(bridge, { refreshMs: 0 });
    app.store.subscribe((s) => progressSeen.push(s.transfers.addProgress));
    await app.actions.transfers.dropFiles([{ name: 'a' }, { name: 'b' }, { name: 'c' }], async () => files);
    const first = app.actions.transfers.add([], 'local', '');
    const second = app.actions.transfers.add([], 'local', '');
    await Promise.resolve();
    expect(app.store.getState().transfers.addProgress).toEqual({ done: 3, total: 3 });
    release();
    const [one, two] = await Promise.all([first, second]);
    expect([one?.queued, two]).toEqual([[1, 2, 3], null]);
    expect(sends).toBe(1);
    expect(progressSeen).toContainEqual({ done: 0, total: 3 });
    expect(progressSeen).toContainEqual({ done: 1, total: 3 });
    expect(app.store.getState().transfers.addProgress).toBeNull();
    app.dispose();
  });

  it('sends the paths once when "Add" is pressed twice', async () => {
    let adds = 0;
    const bridge = fakeBridge({
      transfers: {
        add: async () => {
          adds++;
          return { ok: true, value: { queued: [1], alreadyUploaded: [], skipped: [], bytesQueued: 1 } };
        },
      },
    });
    const app = createAppStore(bridge, { refreshMs: 0 });
    app.actions.transfers.openAdd();
    const both = await Promise.all([
      app.actions.transfers.add(['/a'], 'local', ''),
      app.actions.transfers.add(['/a'], 'local', ''),
    ]);
    expect(both.map((r) => r?.queued ?? null)).toEqual([[1], null]);
    expect(adds).toBe(1);
    app.dispose();
  });

  it('asks for paths when neither is possible', async () => {
    const app = createAppStore(fakeBridge({}), { refreshMs: 0 });
    await app.actions.transfers.dropFiles([{ name: 'a.jpg' }], async () => []);
    expect(app.store.getState().transfers.adding).toEqual({ paths: [], noPath: true, staged: [], folder: null });
    app.dispose();
  });
});

describe('transfers slice: a refused add', () => {
  const refusal = { code: 'no-account' as const, message: 'no account', params: {} };

  it('is said in the open dialog, not in a toast under its mask; the next add clears it', async () => {
    let answer: 'refuse' | 'take' = 'refuse';
    const bridge = fakeBridge({
      transfers: {
        add: async () =>
          answer === 'refuse'
            ? { ok: false, error: refusal }
            : { ok: true, value: { queued: [1], alreadyUploaded: [], skipped: [], bytesQueued: 0 } },
      },
    });
    const app = createAppStore(bridge, { refreshMs: 0 });
    app.actions.transfers.openAdd();
    expect(await app.actions.transfers.add(['/a'], 'local', '')).toBeNull();
    expect(app.store.getState().transfers.adding).toMatchObject({ paths: [], error: refusal });
    expect(app.store.getState().app.notices).toEqual([]);
    answer = 'take';
    const pending = app.actions.transfers.add(['/a'], 'local', '');
    expect(app.store.getState().transfers.adding?.error).toBeUndefined();
    expect((await pending)?.queued).toEqual([1]);
    expect(app.store.getState().transfers.adding).toBeNull();
    app.dispose();
  });

  it('is a toast when the dialog was closed while the add ran', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const bridge = fakeBridge({ transfers: { add: async () => (await held, { ok: false, error: refusal }) } });
    const app = createAppStore(bridge, { refreshMs: 0 });
    app.actions.transfers.openAdd();
    const pending = app.actions.transfers.add(['/a'], 'local', '');
    app.actions.transfers.closeAdd();
    release();
    expect(await pending).toBeNull();
    expect(app.store.getState().app.notices).toEqual([
      expect.objectContaining({ kind: 'error', context: 'transfers.add', error: refusal }),
    ]);
    app.dispose();
  });
});
