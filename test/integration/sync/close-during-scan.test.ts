import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { INDEX_BATCH_FILES } from '../../../src-main/sync/root-indexer';
import type { WatchManager } from '../../../src-main/sync/watch-manager';
import { SyncHarness } from './harness';

const FOLDERS = 200;
const PER_FOLDER = 100;
const FILES = FOLDERS * PER_FOLDER;

/**
 * Quitting while the first scan of a large folder runs: the app's quit closes the watch
 * manager (service/app-core.ts), which used to wait for the whole scan (every file walked and
 * queued). The scan now stops at its next slice; what it queued is whole batches, and the
 * next start queues the rest: every file once.
 */
describe('closing during the first scan of a large folder', () => {
  let h: SyncHarness;
  let m: WatchManager | undefined;
  const big = () => path.join(h.folder, 'big');

  /** Opens database and engine (not started: no upload runs) and a manager, as the app does. */
  const openApp = async () => {
    await h.openRun({ backend: 'parcel', startEngine: false });
    // The manager adds its own roots: drop the harness's (never started) root of the parent folder.
    await h.root!.close();
    h.repo!.removeRoot(h.root!.id);
    m = h.watchManager();
    return m;
  };
  const counts = () =>
    h
      .db!.prepare(
        `SELECT COUNT(*) AS n, COUNT(DISTINCT local_path) AS paths FROM transfers WHERE local_path LIKE ? || '%'`,
      )
      .get(big() + path.sep) as { n: number; paths: number };

  beforeEach(async () => {
    h = await SyncHarness.create();
    const old = new Date(Date.now() - 60_000); // stable for the scan at once
    for (let d = 0; d < FOLDERS; d++) {
      const dir = path.join(h.folder, 'big', `d${d}`);
      await mkdir(dir, { recursive: true });
      await Promise.all(
        Array.from({ length: PER_FOLDER }, async (_, i) => {
          const f = path.join(dir, `f${i}.txt`);
          await writeFile(f, `${d}/${i}`);
          await utimes(f, old, old);
        }),
      );
    }
  }, 120_000);
  afterEach(async () => {
    await m?.close();
    m = undefined;
    await h.dispose();
  });

  for (const phase of ['walk', 'queue'] as const) {
    it(`stops at its next slice when closed during the ${phase}, and the next start queues every file once`, async () => {
      const mgr = await openApp();
      const accountId = new AccountRepo(h.db!).byName('Local')!.id;
      let queuedAtClose = -1;
      let queued = 0;
      let closing: Promise<void> | undefined;
      const closeNow = () => {
        if (closing) return;
        queuedAtClose = queued;
        closing = mgr.close();
      };
      mgr.on((e) => {
        if (e.type === 'scan-started' && phase === 'walk') closeNow();
        if (e.type === 'queued') {
          queued += e.files.length;
          if (phase === 'queue') closeNow();
        }
      });
      // What the app's "add folder" does (service/use-cases/roots.ts → WatchManager.addRoot).
      const adding = mgr.addRoot({ folder: big(), accountId, bucket: h.emu.bucket, prefix: 'big/' });
      const t0 = process.cpuUsage();
      await adding;
      await closing;
      const cpu = process.cpuUsage(t0);
      // The bound is the scan's slice, not the folder: at most one more batch went in after the close.
      const queuedInClose = queued - queuedAtClose;
      expect(queuedAtClose).toBeGreaterThanOrEqual(0);
      expect(queuedInClose).toBeLessThanOrEqual(INDEX_BATCH_FILES);
      expect(queued).toBeLessThanOrEqual(FILES / 10);
      const stopped = counts();
      expect(stopped.n).toBe(queued); // whole batches: every queued event is in the database, nothing else
      expect(stopped.paths).toBe(stopped.n);
      console.log(
        `close during the ${phase}: ${queued} of ${FILES} files queued, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU from add to closed`,
      );

      // Restart: the stored root starts again and queues the rest.
      await h.closeRun();
      m = undefined;
      const again = await openApp();
      await again.startAll();
      const after = counts();
      expect(after.n).toBe(FILES);
      expect(after.paths).toBe(FILES);
      const rows = h
        .db!.prepare(`SELECT state, COUNT(*) AS n, COUNT(transfer_id) AS ids FROM sync_files GROUP BY state`)
        .all();
      expect(rows).toEqual([{ state: 'queued', n: FILES, ids: FILES }]);
    }, 180_000);
  }
});
