import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BURST_EVENTS } from '../../../src-main/sync/burst-catch-up';
import { startFolderWatcher, WATCHER_BACKENDS, type WatcherBackend } from '../../../src-main/sync/watcher';
import { SyncHarness } from './harness';

const FOLDERS = 15;
const PER_FOLDER = 100;
/** The folder whose events the OS "drops", as an overflowing inotify queue does, unreported, during a burst. */
const LOST = 'batch-7';

/**
 * The real backend, with every event in and of LOST dropped before the root hears it: what a
 * slow process gets when the kernel's event queue overflows during a burst (@parcel/watcher
 * skips IN_Q_OVERFLOW; libuv does not report it either). The files are on disk; only their
 * events are gone.
 */
function droppingWatcher(root: string): typeof startFolderWatcher {
  const lost = path.join(root, LOST);
  return (backend, opts) =>
    startFolderWatcher(backend, {
      ...opts,
      onEvents: (events) => {
        const kept = events.filter((e) => e.absPath !== lost && !e.absPath.startsWith(lost + path.sep));
        if (kept.length) opts.onEvents(kept);
      },
    });
}

async function writeFolders(root: string, folders: number, perFolder: number): Promise<void> {
  for (let d = 0; d < folders; d++) {
    const dir = path.join(root, `batch-${d}`);
    await mkdir(dir);
    await Promise.all(Array.from({ length: perFolder }, (_, i) => writeFile(path.join(dir, `f${i}.txt`), `${d}/${i}`)));
  }
}

/** Waits while `count()` moves toward `target`; returns when there or after 15 s without a change. */
async function whileArriving(count: () => number, target: number): Promise<void> {
  let last = count();
  let since = Date.now();
  while (last < target && Date.now() - since < 15_000) {
    await new Promise((r) => setTimeout(r, 100));
    if (count() !== last) [last, since] = [count(), Date.now()];
  }
}

/**
 * Events a watcher loses without saying so (an OS queue that overflowed in a burst, a new
 * folder it could not watch) must not lose files: after a burst of BURST_EVENTS or more the
 * root renews its watches and scans again once it is quiet, and every file reaches the queue
 * exactly once. A handful of events costs no scan.
 */
describe.each(WATCHER_BACKENDS)('events lost in a burst, %s backend', (backend: WatcherBackend) => {
  let h: SyncHarness;
  beforeEach(async () => {
    h = await SyncHarness.create();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it('the files whose events were dropped are queued once the burst is quiet, each once', async () => {
    expect(FOLDERS * PER_FOLDER - PER_FOLDER).toBeGreaterThan(BURST_EVENTS); // the events kept make a burst
    await h.openRun({
      backend,
      options: { stabilityMs: 200 },
      startEngine: false,
      startWatcher: droppingWatcher(h.folder),
      burstQuietMs: 300,
    });
    await h.root!.start();
    const queued = new Map<string, number>();
    h.root!.on((e) => {
      if (e.type === 'queued') for (const f of e.files) queued.set(f.relPath, (queued.get(f.relPath) ?? 0) + 1);
    });
    await writeFolders(h.folder, FOLDERS, PER_FOLDER);
    await whileArriving(() => queued.size, FOLDERS * PER_FOLDER);
    await h.root!.whenSettled();
    const lost = [...Array(PER_FOLDER).keys()].filter((i) => !queued.has(`${LOST}/f${i}.txt`)).length;
    expect(lost, `files of ${LOST} never queued`).toBe(0);
    expect(queued.size).toBe(FOLDERS * PER_FOLDER);
    expect(Math.max(...queued.values())).toBe(1);
    expect(h.repo!.countByState(h.root!.id).queued).toBe(FOLDERS * PER_FOLDER);
  }, 120_000);

  it('a few files cost no second scan', async () => {
    await h.openRun({ backend, options: { stabilityMs: 200 }, startEngine: false, burstQuietMs: 300 });
    await h.root!.start();
    const queued = new Set<string>();
    h.root!.on((e) => {
      if (e.type === 'queued') for (const f of e.files) queued.add(f.relPath);
    });
    await writeFolders(h.folder, 1, 20);
    await whileArriving(() => queued.size, 20);
    await new Promise((r) => setTimeout(r, 600)); // past the quiet period
    await h.root!.whenSettled();
    expect(queued.size).toBe(20);
    expect(h.events.filter((e) => e.type === 'scan-started')).toHaveLength(1); // the start's only
  }, 60_000);
});
