import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const WAL_CHECKPOINT_MS = 500;
/** A log this long (pages; 8 MiB) is started over even when the app never pauses... */
const LONG_LOG_PAGES = 2048;
/** ...provided the checkpoint's last pass, fsync included, took less than this. */
const QUICK_PASS_MS = 10;

/**
 * The checkpointer's thread: its own connection to the same file, a PASSIVE checkpoint every
 * `everyMs` (it never waits for or blocks a writer), a last one on 'stop'. Plain CommonJS
 * run with `eval` (no file of its own in the bundles); the driver's path comes resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
// Never wait for the app's writer: a busy moment is skipped, the next tick tries again.
db.pragma('busy_timeout = 0');
const restart = () => db.pragma('wal_checkpoint(RESTART)')[0].busy === 0;
const checkpoint = () => {
  try {
    // The bulk, with its fsync, while the app goes on writing.
    let t = performance.now();
    let r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    let passMs = performance.now() - t;
    const first = r;
    let restarted = false;
    // A RESTART copies, under the writer lock, what the app wrote since the last pass (with an
    // fsync), then leaves the log to start over at the app's next write. Once a pass finds
    // nothing new, the RESTART has nothing to copy: it holds the lock for a moment only.
    for (let pass = 0; pass < 3 && r.log > 0 && r.checkpointed === r.log; pass++) {
      t = performance.now();
      const now = db.pragma('wal_checkpoint(PASSIVE)')[0];
      passMs = performance.now() - t;
      if (now.log === r.log && now.checkpointed === now.log) {
        restarted = restart();
        break;
      }
      r = now;
    }
    // The app never paused that long, and the log is long: the RESTART copies the little the
    // app wrote during the last pass, but only while the disk answers fast (that pass took
    // under QUICK_PASS_MS), so the app's next write waits a few milliseconds at most.
    if (!restarted && r.log >= workerData.longLogPages && passMs < workerData.quickPassMs) restarted = restart();
    if (workerData.report) parentPort.postMessage({ checkpoint: first, restarted });
  } catch (e) {
    parentPort.postMessage({ error: String((e && e.message) || e) });
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
parentPort.postMessage({ ready: true });
`;

export interface WalCheckpointer {
  /** Stops the thread after a last checkpoint (it keeps the process alive until then); the main connection checkpoints again as it closes. */
  stop(): Promise<void>;
}

/**
 * Moves the app database's WAL checkpoints off the main thread. SQLite checkpoints on the
 * commit that takes the log over 1,000 pages, in the committing thread, with an fsync of
 * the database file: on a machine whose disk is busy such a commit held serve's loop for
 * 50–250 ms (a 20 s run of 16-row transactions: 63 commits over 50 ms with the automatic
 * checkpoint, 7 without). Here the main connection never checkpoints
 * (`wal_autocheckpoint = 0`) and a worker thread with its own connection runs a PASSIVE
 * checkpoint every WAL_CHECKPOINT_MS. Should the thread fail to start or die, the main
 * connection checkpoints by itself again, as before. `onError` hears a failed checkpoint.
 *
 * A checkpoint alone does not keep the log short. SQLite starts the log over only when a
 * transaction begins while every frame is already copied; the app, writing several times a
 * second, kept appending frames while the thread's checkpoint ran (and fsynced), so the log
 * never started over: about 600 MB three minutes into the long load, 52 MB from 32 MiB of
 * small transactions in the unit test, and without bound on a machine left watching a
 * folder. Starting it over takes a RESTART checkpoint, which holds the writer lock while it
 * copies what is left (with an fsync), so the app's writes wait for it. The thread asks for
 * one, without waiting itself (busy_timeout 0: a busy moment is skipped till the next tick),
 * only when that hold is short: when a PASSIVE pass found nothing new since the one before
 * (nothing left to copy), or when the log is past LONG_LOG_PAGES and the last pass, fsync
 * included, took under QUICK_PASS_MS (a disk that answers fast).
 */
export function startWalCheckpointer(
  db: Db,
  opts: {
    everyMs?: number;
    onError?: (message: string) => void;
    /** Hears each checkpoint's result: pages in the log, pages copied into the database, and whether the log then started over. */
    onCheckpoint?: (r: { busy: number; log: number; checkpointed: number; restarted: boolean }) => void;
  } = {},
): WalCheckpointer {
  const fallback = () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  };
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: db.name,
        everyMs: opts.everyMs ?? WAL_CHECKPOINT_MS,
        longLogPages: LONG_LOG_PAGES,
        quickPassMs: QUICK_PASS_MS,
        report: opts.onCheckpoint !== undefined,
      },
    });
  } catch (e) {
    opts.onError?.(`the WAL checkpointer did not start: ${(e as Error).message}`);
    return { stop: () => Promise.resolve() };
  }
  db.pragma('wal_autocheckpoint = 0');
  // Ref'd, like the service's other resources: stop() (the service's close) ends it.
  let stopping = false;
  worker.on(
    'message',
    (m: { error?: string; restarted?: boolean; checkpoint?: { busy: number; log: number; checkpointed: number } }) => {
      if (m.error) opts.onError?.(`WAL checkpoint: ${m.error}`);
      if (m.checkpoint) opts.onCheckpoint?.({ ...m.checkpoint, restarted: m.restarted === true });
    },
  );
  worker.on('error', (e) => {
    opts.onError?.(`the WAL checkpointer stopped: ${e.message}`);
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) fallback();
      resolve();
    }),
  );
  return {
    stop: () => {
      if (!stopping) {
        stopping = true;
        fallback();
        worker.postMessage('stop');
      }
      return exited;
    },
  };
}
