import path from 'node:path';
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
  const ids = r.engine.enqueue(
    [...data.keys()].map((name) => ({
      accountId: r.accountId,
      bucket: r.emu.bucket,
      key: `q/${name}`,
      localPath: path.join(r.dir, name),
      source: 'manual' as const,
    })),
  );
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
