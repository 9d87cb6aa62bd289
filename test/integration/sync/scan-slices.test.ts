import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_BATCH_FILES } from '../../../src-main/sync/root-indexer';
import { SyncHarness } from './harness';

const FILES = 1_000;

/**
 * A first scan queues what it finds in slices with turns of the loop between, so serve's
 * loop stays free while a tree of 100,000 files is admitted (issue 20 point 4: 250 files a
 * transaction held it for 100–250 ms on a busy machine).
 */
describe('first scan of a large tree', () => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it(`queues ${FILES} files at most 50 a turn of the event loop`, async () => {
    for (let d = 0; d < 10; d++) {
      await mkdir(path.join(h.folder, `d${d}`));
      await Promise.all(
        Array.from({ length: FILES / 10 }, (_, i) => writeFile(path.join(h.folder, `d${d}`, `f${i}.txt`), `${d}/${i}`)),
      );
    }
    // Every file is stable for the scan: the stability rule's clock is ten minutes ahead.
    await h.openRun({ backend: 'parcel', startEngine: false, now: () => Date.now() + 600_000 });
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const perTurn = new Map<number, number>();
    h.root!.on((e) => {
      if (e.type === 'queued') perTurn.set(turn, (perTurn.get(turn) ?? 0) + e.files.length);
    });
    try {
      await h.root!.start();
    } finally {
      ticking = false;
    }
    const queued = [...perTurn.values()];
    expect(queued.reduce((a, b) => a + b, 0)).toBe(FILES);
    // The claim: no turn queues more than 50 files (≈ 0.3 ms each on an idle machine).
    expect(Math.max(...queued)).toBeLessThanOrEqual(50);
    expect(perTurn.size).toBe(Math.ceil(FILES / INDEX_BATCH_FILES));
  }, 60_000);
});
