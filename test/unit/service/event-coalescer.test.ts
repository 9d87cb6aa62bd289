import { describe, expect, it } from 'vitest';
import {
  BATCH_READ_MS,
  EventCoalescer,
  type BatchEvent,
  type FlushClock,
} from '../../../src-main/service/event-coalescer';
import type { TransferView } from '../../../src-main/shared/contract';
import type { TransferSnapshot, TransferState } from '../../../src-main/shared/models';
import { emptyTotals } from '../../../src-main/common/totals';

/**
 * A hand-driven clock: `advance(ms)` runs every timer due within it, in order; `spend(ms)`
 * moves time without running timers (a read that takes that long). Reads take no time unless
 * a test spends it.
 */
function fakeClock() {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: FlushClock = {
    setTimeout: (fn, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => {
      timers.delete(h as number);
    },
    now: () => now,
  };
  return {
    clock,
    get now() {
      return now;
    },
    spend(ms: number) {
      now += ms;
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = end;
    },
  };
}

function snap(id: number, state: TransferState, bytesDone = 0): TransferSnapshot {
  return {
    id,
    accountId: 1,
    bucket: 'b',
    key: `k${id}`,
    localPath: `/f/${id}`,
    size: 1000,
    state,
    source: 'manual',
    bytesDone,
    speed: 0,
    etaSeconds: null,
    etag: null,
    lastError: null,
    warning: null,
    createdAt: 0,
    updatedAt: 0,
  };
}

const view = (s: TransferSnapshot): TransferView => ({
  ...s,
  rootId: null,
  pausedBy: null,
  attempts: 0,
  verified: false,
  remoteHash: null,
  persistentId: null,
  copiedFrom: null,
});

describe('event coalescer', () => {
  it('10,000 transfers in flight: at most 10 batches a second, and the last state of every transfer arrives', () => {
    const t = fakeClock();
    const batches: Array<{ at: number; e: BatchEvent }> = [];
    const c = new EventCoalescer({
      emit: (e) => batches.push({ at: t.now, e }),
      transferView: view,
      rootView: () => undefined,
      totals: emptyTotals,
      clock: t.clock,
    });
    const N = 10_000;
    const last = new Map<number, TransferState>();
    // Three simulated seconds: every 5 ms, each of 500 transfers reports progress; states move along.
    for (let ms = 0; ms < 3000; ms += 5) {
      for (let k = 0; k < 500; k++) {
        const id = ((ms / 5) * 500 + k) % N;
        c.transferProgress({ id, bytesDone: ms, size: 1000, speed: 100, etaSeconds: 1 });
      }
      const id = (ms / 5) % N;
      const state: TransferState = ms < 1000 ? 'uploading' : ms < 2000 ? 'completing' : 'done';
      for (const x of [id, (id + 5000) % N]) {
        c.transferChanged(snap(x, state));
        last.set(x, state);
      }
      t.advance(5);
    }
    // Every transfer changes once more at the very end, in one burst.
    for (let id = 0; id < N; id++) {
      c.transferChanged(snap(id, 'done', 1000));
      last.set(id, 'done');
    }
    // The burst goes out MAX_TRANSFERS_PER_BATCH rows a batch: 20 batches, two seconds.
    t.advance(3000);

    const transferBatches = batches.filter((b) => b.e.name === 'transfers');
    for (let second = 0; second < 7; second++) {
      const inSecond = transferBatches.filter((b) => b.at >= second * 1000 && b.at < (second + 1) * 1000);
      expect(inSecond.length).toBeLessThanOrEqual(10);
    }
    for (let i = 1; i < transferBatches.length; i++)
      expect(transferBatches[i]!.at - transferBatches[i - 1]!.at).toBeGreaterThanOrEqual(100);

    const seen = new Map<number, TransferState>();
    for (const b of transferBatches) {
      if (b.e.name !== 'transfers') continue;
      const ids = b.e.payload.changed.map((v) => v.id);
      expect(new Set(ids).size).toBe(ids.length); // one snapshot per transfer per batch
      for (const v of b.e.payload.changed) seen.set(v.id, v.state);
    }
    expect(seen.size).toBe(N);
    for (const [id, state] of last) expect(seen.get(id)).toBe(state);
  });

  it('progress is one array per batch with the latest entry of each transfer, and throughput is the bytes they moved a second', () => {
    const t = fakeClock();
    const batches: BatchEvent[] = [];
    let running = 2;
    const c = new EventCoalescer({
      emit: (e) => batches.push(e),
      transferView: view,
      rootView: () => undefined,
      totals: () => ({ ...emptyTotals(), uploading: running }),
      clock: t.clock,
    });
    c.transferProgress({ id: 1, bytesDone: 10, size: 100, speed: 5, etaSeconds: 18 });
    c.transferProgress({ id: 1, bytesDone: 20, size: 100, speed: 7, etaSeconds: 11 });
    c.transferProgress({ id: 2, bytesDone: 1, size: 100, speed: 3, etaSeconds: 33 });
    t.advance(99);
    expect(batches).toEqual([]);
    t.advance(1);
    expect(batches).toHaveLength(1);
    const b = batches[0]!;
    expect(b.name).toBe('transfers');
    if (b.name !== 'transfers') return;
    expect(b.payload.progress).toEqual([
      { id: 1, bytesDone: 20, size: 100, speed: 7, etaSeconds: 11 },
      { id: 2, bytesDone: 1, size: 100, speed: 3, etaSeconds: 33 },
    ]);
    // One sample so far (the first progress of a transfer is where it starts): no rate yet.
    expect(b.payload.throughput).toBe(0);
    // In the next 100 ms: transfer 1 ends with 80 more bytes (a small file's one step and its
    // end within one batch interval still count), transfer 2 moves 19 and is still running.
    c.transferProgress({ id: 1, bytesDone: 100, size: 100, speed: 0, etaSeconds: 0 });
    c.transferChanged(snap(1, 'done', 100));
    c.transferProgress({ id: 2, bytesDone: 20, size: 100, speed: 3, etaSeconds: 33 });
    running = 1;
    t.advance(100);
    const b2 = batches[1]!;
    if (b2.name !== 'transfers') throw new Error('expected a transfers batch');
    expect(b2.payload.throughput).toBe(990); // 99 bytes in 100 ms
    expect(b2.payload.changed.map((v) => [v.id, v.state])).toEqual([[1, 'done']]);
    // A block that starts over (bytesDone back) moved nothing.
    c.transferProgress({ id: 2, bytesDone: 4, size: 100, speed: 0, etaSeconds: null });
    t.advance(100);
    const b3 = batches[2]!;
    if (b3.name !== 'transfers') throw new Error('expected a transfers batch');
    expect(b3.payload.throughput).toBe(495); // 99 bytes in 200 ms
    // Nothing queued or running any more: 0, not the rate of the last seconds.
    c.transferChanged(snap(2, 'done', 100));
    running = 0;
    t.advance(100);
    const b4 = batches[3]!;
    if (b4.name !== 'transfers') throw new Error('expected a transfers batch');
    expect(b4.payload.throughput).toBe(0);
    // Nothing pending: no batch.
    t.advance(1000);
    expect(batches).toHaveLength(4);
  });

  it('a burst over the per-batch cap is spread over the next batches, oldest first, the latest snapshot of each', () => {
    const t = fakeClock();
    const batches: BatchEvent[] = [];
    const reads: number[] = [];
    const c = new EventCoalescer({
      emit: (e) => batches.push(e),
      transferView: (s) => (reads.push(s.id), view(s)),
      rootView: () => undefined,
      totals: emptyTotals,
      clock: t.clock,
      maxTransfersPerBatch: 4,
    });
    for (let id = 1; id <= 10; id++) c.transferChanged(snap(id, 'queued'));
    t.advance(100);
    const changed = () =>
      batches.map((b) => (b.name === 'transfers' ? b.payload.changed.map((v) => `${v.id}:${v.state}`) : []));
    expect(changed()).toEqual([['1:queued', '2:queued', '3:queued', '4:queued']]);
    expect(reads).toHaveLength(4); // only the rows of the batch were read
    // transfer 9 moves on while it waits: the batch that takes it sends its latest state
    c.transferChanged(snap(9, 'uploading'));
    t.advance(99);
    expect(batches).toHaveLength(1); // still one batch per interval at most
    t.advance(1);
    t.advance(100);
    expect(changed()).toEqual([
      ['1:queued', '2:queued', '3:queued', '4:queued'],
      ['5:queued', '6:queued', '7:queued', '8:queued'],
      ['9:uploading', '10:queued'],
    ]);
    t.advance(1000);
    expect(batches).toHaveLength(3);
    // close() sends everything still waiting, however many batches it takes
    for (let id = 11; id <= 20; id++) c.transferChanged(snap(id, 'done'));
    c.close();
    expect(changed().slice(3).flat()).toEqual(Array.from({ length: 10 }, (_, i) => `${i + 11}:done`));
    expect(batches).toHaveLength(6);
    t.advance(1000);
    expect(batches).toHaveLength(6);
  });

  it('a batch stops reading rows after BATCH_READ_MS and leaves the rest for the next ones, so no batch holds the loop long', () => {
    const t = fakeClock();
    const batches: Array<{ at: number; e: BatchEvent }> = [];
    const c = new EventCoalescer({
      emit: (e) => batches.push({ at: t.now, e }),
      // Each row takes 1 ms to read (a machine whose cores are taken).
      transferView: (s) => (t.spend(1), view(s)),
      rootView: () => undefined,
      totals: emptyTotals,
      clock: t.clock,
    });
    const count = 1000;
    for (let id = 1; id <= count; id++) c.transferChanged(snap(id, 'queued'));
    t.advance(100 * 1000);
    const sent = batches.flatMap((b) => (b.e.name === 'transfers' ? [b.e.payload.changed.map((v) => v.id)] : []));
    // Ten 1 ms reads a batch at most: the 500 rows of a batch held the loop 500 ms.
    expect(Math.max(...sent.map((ids) => ids.length))).toBe(BATCH_READ_MS);
    expect(sent).toHaveLength(count / BATCH_READ_MS);
    // Every row arrives once, oldest first; batches stay at least an interval apart.
    expect(sent.flat()).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    for (let i = 1; i < batches.length; i++) expect(batches[i]!.at - batches[i - 1]!.at).toBeGreaterThanOrEqual(100);
  });

  it('close() sends what is pending and nothing after', () => {
    const t = fakeClock();
    const batches: BatchEvent[] = [];
    const c = new EventCoalescer({
      emit: (e) => batches.push(e),
      transferView: view,
      rootView: (id) => ({ id }) as never,
      totals: emptyTotals,
      clock: t.clock,
    });
    c.transferChanged(snap(7, 'failed'));
    c.rootChanged(3);
    c.close();
    expect(batches.map((b) => b.name)).toEqual(['transfers', 'roots']);
    c.transferChanged(snap(8, 'failed'));
    t.advance(1000);
    expect(batches).toHaveLength(2);
  });

  it('a read that fails while a batch is built (a closing database) neither throws from the timer nor loses the state', () => {
    const t = fakeClock();
    const batches: BatchEvent[] = [];
    const errors: unknown[] = [];
    const c = new EventCoalescer({
      emit: (e) => batches.push(e),
      transferView: () => {
        throw new Error('The database connection is not open');
      },
      rootView: () => undefined,
      totals: () => {
        throw new Error('The database connection is not open');
      },
      onError: (e) => errors.push(e),
      clock: t.clock,
    });
    c.transferChanged(snap(4, 'failed'));
    expect(() => t.advance(100)).not.toThrow();
    const b = batches[0]!;
    if (b.name !== 'transfers') throw new Error('expected a transfers batch');
    expect(b.payload.changed.map((v) => [v.id, v.state, v.pausedBy])).toEqual([[4, 'failed', null]]);
    expect(b.payload.totals).toEqual(emptyTotals());
    expect(errors).toHaveLength(2);
  });
});
