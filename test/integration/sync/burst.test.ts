import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WATCHER_BACKENDS, type WatcherBackend } from '../../../src-main/sync/watcher';
import { SyncHarness } from './harness';

const FILES = 10_000;
const FOLDERS = 100;

/**
 * Each file appears whole (written under a hidden name, which the root ignores, then renamed):
 * a file created empty and filled later, on a machine slow enough to leave it empty for a
 * whole stability window, is rightly uploaded twice; this test is about the burst.
 */
async function writeBurst(h: SyncHarness): Promise<void> {
  for (let d = 0; d < FOLDERS; d++) {
    const dir = path.join(h.folder, `batch-${d}`);
    await mkdir(dir);
    await Promise.all(
      Array.from({ length: FILES / FOLDERS }, async (_, i) => {
        const part = path.join(dir, `.f${i}.part`);
        await writeFile(part, `${d}/${i}`);
        await rename(part, path.join(dir, `f${i}.txt`));
      }),
    );
  }
}

/** How long a count may stand still, short of its target, before the files it lacks count as lost. */
const STALLED_MS = 60_000;

/**
 * Waits while `count()` still moves toward `target`: returns when it gets there, or when it
 * has not changed for STALLED_MS (then what is missing is lost, not late). A loaded machine
 * makes the burst slow, not still: a fixed limit there cannot tell "still arriving" from
 * "lost", which is the one thing this test is about. The test's own timeout bounds the whole.
 */
async function whileArriving(count: () => number, target: number): Promise<void> {
  let last = count();
  let since = Date.now();
  while (last < target && Date.now() - since < STALLED_MS) {
    await new Promise((r) => setTimeout(r, 100));
    const now = count();
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

/** The files of the burst that never reached the queue, by folder (`batch-7: 100`), for the failure message. */
function missingByFolder(queued: ReadonlyMap<string, number>): string {
  const byFolder = new Map<string, number>();
  for (let d = 0; d < FOLDERS; d++)
    for (let i = 0; i < FILES / FOLDERS; i++)
      if (!queued.has(`batch-${d}/f${i}.txt`)) byFolder.set(`batch-${d}`, (byFolder.get(`batch-${d}`) ?? 0) + 1);
  return [...byFolder].map(([dir, n]) => `${dir}: ${n}`).join(', ');
}

/**
 * 10,000 files appearing at once while watching. On each backend: every file reaches the
 * queue exactly once and the process stays responsive. On the default backend the engine
 * also uploads them all (≈ 150 tiny files a second on two cores with the emulator in the
 * same process, so about a minute); on the other the engine is not started, which keeps
 * the suite shorter while checking the same sync path. A machine busy with other work can make
 * that minute ten, so the waits last while the counts still move (whileArriving) and fail only
 * when they stop short; a failure names the folders whose files never reached the queue.
 */
describe.each(WATCHER_BACKENDS)('a burst, %s backend', (backend: WatcherBackend) => {
  const upload = backend === 'parcel';
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it(`${FILES} files appearing at once all arrive, each once${upload ? ', uploaded' : ', queued'}`, async () => {
    await h.openRun({ backend, options: { stabilityMs: 200 }, maxFiles: 16, startEngine: upload });
    await h.root!.start();
    const queued = new Map<string, number>();
    h.root!.on((e) => {
      if (e.type === 'queued') for (const f of e.files) queued.set(f.relPath, (queued.get(f.relPath) ?? 0) + 1);
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    try {
      await writeBurst(h);
      await whileArriving(() => queued.size, FILES);
      await h.root!.whenSettled();
      if (upload) await whileArriving(() => h.repo!.countByState(h.root!.id).uploaded, FILES);
    } finally {
      clearInterval(ticker);
    }
    expect(queued.size, `never queued: ${missingByFolder(queued)}`).toBe(FILES);
    expect(Math.max(...queued.values())).toBe(1);
    expect(ticks).toBeGreaterThan(10);
    if (upload) {
      await h.settle();
      expect(h.repo!.countByState(h.root!.id).uploaded).toBe(FILES);
      expect(h.emu.objects.list(h.emu.bucket, 'up/').length).toBe(FILES);
      expect(new Set(h.transfers.filter((t) => t.state === 'done').map((t) => t.id)).size).toBe(FILES);
    } else {
      expect(h.repo!.countByState(h.root!.id).queued).toBe(FILES);
    }
  }, 720_000);
});
