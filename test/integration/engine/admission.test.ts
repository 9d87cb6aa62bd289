import { afterEach, describe, expect, it } from 'vitest';
import type { EngineOptions } from '../../../src-main/engine/engine';
import { etagOfBuffer, startRig, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * Uploads `count` files of `size` bytes with these engine options and counts the queue rows
 * the engine read while starting them (its pump's reads of queued transfers, each row about
 * 9 µs of CPU: a camera card of 2,000 photos read the queue that many times).
 */
async function rowsReadFor(count: number, size: number, engine: Partial<EngineOptions>): Promise<number> {
  rig = await startRig({ engine });
  const r = rig;
  const data = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) data.set(`f${i}.bin`, await r.file(`f${i}.bin`, size));
  let rows = 0;
  const list = r.store.listTransfers.bind(r.store);
  r.store.listTransfers = (states, limit) => {
    const got = list(states, limit);
    if (states.length === 1 && states[0] === 'queued') rows += got.length;
    return got;
  };
  const ids = r.enqueueFiles([...data.keys()], (name) => `q/${name}`);
  for (const [i, id] of ids.entries()) {
    const s = await r.settled(id);
    expect(s.lastError).toBeNull();
    expect(s.state).toBe('done');
    expect(s.etag).toBe(etagOfBuffer(data.get(`f${i}.bin`)!));
  }
  return rows;
}

describe('the queue is read as far as transfers can start', () => {
  it('a queue of large files: a few rows per file started, not a page of 28 behind a full large slot', async () => {
    // Every file in blocks (no form uploads), two at once: each end lets one more start.
    const rows = await rowsReadFor(24, 64 * 1024, { formUploadMaxBytes: 0, limits: { maxFiles: 2 } });
    // Reading `room` (cap 32 − running) rows per start read about 29 per file here.
    expect(rows).toBeLessThanOrEqual(3 * 24);
  });

  it('a queue of small files still starts them in pages: rows read stay near one per file', async () => {
    const rows = await rowsReadFor(80, 16 * 1024, {});
    expect(rows).toBeLessThanOrEqual(2 * 80);
  });
});

describe('a large file completing gives its slot to the next', () => {
  it("the next file's blocks go out while the one before waits for its mkfile", async () => {
    // One large slot; every mkfile answers 400 ms late (a long round trip on the completing request).
    rig = await startRig({
      engine: { formUploadMaxBytes: 0, limits: { maxFiles: 1 } },
      emulator: { faults: { latencyMs: 400, latencyEndpoints: ['mkfile'] } },
    });
    const r = rig;
    const names = ['a.bin', 'b.bin', 'c.bin'];
    const data = new Map<string, Buffer>();
    for (const n of names) data.set(n, await r.file(n, 200 * 1024));
    const seen: string[] = [];
    const off = r.engine.onTransferChange((s) => {
      if (s.state === 'completing' || s.state === 'done') seen.push(`${s.key} ${s.state}`);
    });
    const ids = r.enqueueFiles(names);
    for (const [i, id] of ids.entries()) {
      const s = await r.settled(id);
      expect(s.state).toBe('done');
      expect(s.etag).toBe(etagOfBuffer(data.get(names[i]!)!));
    }
    off();
    // Each file reached its mkfile before the file ahead of it was done: its blocks went out
    // while that mkfile waited. With the slot held through mkfile, b waited for a's done.
    expect(seen.indexOf('b.bin completing')).toBeLessThan(seen.indexOf('a.bin done'));
    expect(seen.indexOf('c.bin completing')).toBeLessThan(seen.indexOf('b.bin done'));
  });
});
