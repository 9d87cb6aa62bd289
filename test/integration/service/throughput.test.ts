/**
 * The throughput a window shows (the event coalescer's, in every transfers batch) while the
 * real engine uploads many small files to the real emulator: form uploads report their bytes
 * in one step and end within a batch interval, so a throughput taken from each running
 * transfer's own moving average read 0 B/s all along.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventCoalescer, type BatchEvent } from '../../../src-main/service/event-coalescer';
import { emptyTotals } from '../../../src-main/common/totals';
import type { TransferTotals } from '../../../src-main/shared/contract';
import { startRig, type Rig } from '../engine/harness';

let rig: Rig | undefined;
let coalescer: EventCoalescer | undefined;
afterEach(async () => {
  coalescer?.close();
  coalescer = undefined;
  await rig?.close();
  rig = undefined;
});

describe('throughput of many small files', () => {
  it('200 × 64 KiB form uploads show their real rate, not 0 B/s, and 0 once all are done', async () => {
    // The run's length is set, not left to the machine's speed: 4 files at a time (no window
    // widening them), each request 20 ms longer: about 50 rounds of 20+ ms, a dozen batches.
    rig = await startRig({
      emulator: { faults: { latencyMs: 20 } },
      engine: { adaptiveWindow: false, limits: { maxSmallFiles: 4, maxRequests: 4 } },
    });
    const r = rig;
    const files = Array.from({ length: 200 }, (_, i) => `small-${i}.bin`);
    for (const f of files) await r.file(f, 64 * 1024);
    const live = new Map<number, string>();
    const totals = (): TransferTotals => {
      const t = emptyTotals();
      for (const s of live.values()) t[s as keyof TransferTotals]++;
      return t;
    };
    const batches: Array<{ at: number; throughput: number }> = [];
    coalescer = new EventCoalescer({
      emit: (e: BatchEvent) => {
        if (e.name === 'transfers') batches.push({ at: performance.now(), throughput: e.payload.throughput });
      },
      transferView: () => undefined,
      rootView: () => undefined,
      totals,
    });
    const c = coalescer;
    const offs = [
      r.engine.onTransferChange((s) => {
        live.set(s.id, s.state);
        c.transferChanged(s);
      }),
      r.engine.onProgress((p) => c.transferProgress(p)),
    ];
    const started = performance.now();
    const ids = r.enqueueFiles(files);
    for (const id of ids) expect((await r.settled(id)).state).toBe('done');
    const ended = performance.now();
    for (const off of offs) off();
    const average = (200 * 64 * 1024 * 1000) / (ended - started);
    const during = batches.filter((b) => b.at < ended - 100);
    expect(during.length).toBeGreaterThan(3);
    // Every batch after the first half second names a rate of the order of the real one.
    const settled = during.filter((b) => b.at > started + 500);
    expect(settled.length).toBeGreaterThan(0);
    for (const b of settled) expect(b.throughput).toBeGreaterThan(average / 5);
    // All done: the last batch says 0, not the rate of a while ago.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(batches.at(-1)?.throughput).toBe(0);
  });
});
