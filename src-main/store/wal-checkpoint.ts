import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const WAL_CHECKPOINT_MS = 500;
/**
 * A log this long (pages: 64 MiB) is started over... Each start-over costs an fsync under
 * the writer lock, which the app's next write may wait for: on a busy disk, restarting at
 * 4 MiB had serve's main thread asleep in SQLite's busy handler for 20–80 ms 81 times
 * in one long-load run. At 64 MiB the long load restarts every few tens of seconds, often
 * enough that the log's pages are rewritten while the kernel still holds them.
 */
export const LONG_LOG_PAGES = 16_384;
/** How much of the log past its end the thread reads each tick (the app's next writes: 500 ms of a heavy burst). */
export const WAL_READ_AHEAD_BYTES = 16 * 1024 * 1024;
/** ...right away when the checkpoint's last pass, fsync included, took less than this. */
const QUICK_PASS_MS = 10;

/**
 * The checkpointer's thread: its own connection to the same file, a PASSIVE checkpoint every
 * `everyMs` (it never waits for a writer; see below for when it holds one up), a last one on 'stop'. Plain CommonJS
 * run with `eval` (no file of its own in the bundles); the driver's path comes resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, fstatSync, openSync, readSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
const ahead = Buffer.allocUnsafe(1024 * 1024);
// The app writes the log in frames of a page plus 24 bytes, so most of its writes cover part
// of a kernel page; where the log already has bytes there (after it started over), a page the
// kernel dropped must be read from the disk first, with the app's main thread waiting for it
// (363 ms once in a long load). So this thread reads the stretch of the log the app writes
// next, and the app's write finds it in memory.
// Where the reading so far ended, and where the log's end was then: a tick reads only what
// the ones before did not, until the log starts over (its end moves back) or 20 s passed
// (the kernel drops pages a minute after their last touch, so they are read again).
let warmTo = 0;
let lastFrom = 0;
let warmedAt = 0;
const readAhead = (frames) => {
  let fd;
  try {
    fd = openSync(workerData.file + '-wal', 'r');
    const from = 32 + frames * frameBytes;
    if (from < lastFrom || Date.now() - warmedAt > 20_000) {
      warmTo = 0;
      warmedAt = Date.now();
    }
    lastFrom = from;
    const to = Math.min(fstatSync(fd).size, from + workerData.readAheadBytes);
    for (let at = Math.max(from, warmTo); at < to; at += ahead.length) readSync(fd, ahead, 0, Math.min(ahead.length, to - at), at);
    warmTo = Math.max(warmTo, to);
  } catch {
    // no log yet, or gone: nothing to keep warm
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};
// Never wait for the app's writer: a busy moment is skipped, the next tick tries again.
db.pragma('busy_timeout = 0');
// Its one write (startOver) costs no fsync at commit, like the app's own commits.
db.pragma('synchronous = NORMAL');
const passive = () => {
  const t = performance.now();
  const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
  return { ...r, ms: performance.now() - t };
};
// The first write after a RESTART starts the log over, and SQLite fsyncs the log's new header
// in that write: this thread makes it at once (one page: the schema's user_version, set to
// what it is), so the fsync happens here and not in the app's next write on its main thread.
const startOver = db.transaction(() => {
  db.pragma('user_version = ' + db.pragma('user_version', { simple: true }));
});
const restart = () => {
  if (db.pragma('wal_checkpoint(RESTART)')[0].busy !== 0) return false;
  try {
    startOver.immediate();
  } catch (e) {
    // The app wrote first, and started the log over itself.
    if (!/BUSY|LOCKED/.test(String(e && e.code))) throw e;
  }
  return true;
};
const checkpoint = () => {
  try {
    // The bulk, with its fsync, while the app goes on writing.
    let r = passive();
    const first = r;
    let restarted = false;
    if (r.log >= workerData.longLogPages) {
      // A RESTART copies, under the writer lock, what the app wrote since the last pass (with
      // an fsync). Once a pass finds nothing new, it has nothing to copy and holds the lock for
      // a moment only.
      for (let pass = 0; pass < 3 && r.checkpointed === r.log; pass++) {
        const now = passive();
        if (now.log === r.log && now.checkpointed === now.log) {
          restarted = restart();
          break;
        }
        r = now;
      }
      // The app never paused that long: the RESTART copies the little it wrote during the
      // last pass, but only while the disk answers fast (that pass, fsync included, took under
      // quickPassMs), so that the app's next write waits a few milliseconds at most.
      if (!restarted && r.ms < workerData.quickPassMs) restarted = restart();
    }
    readAhead(restarted ? 0 : r.log);
    if (workerData.report) parentPort.postMessage({ checkpoint: { busy: first.busy, log: first.log, checkpointed: first.checkpointed }, restarted });
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
 * copies what is left (with an fsync), so the app's writes wait for it, and the first write
 * after it fsyncs the log's new header. Once the log is past LONG_LOG_PAGES the thread asks
 * for one, without waiting itself (busy_timeout 0: a busy moment is skipped till the next
 * tick), when that hold is short: when a PASSIVE pass found nothing new since the one before
 * (nothing left to copy), or when the last pass, fsync included, took under QUICK_PASS_MS (a
 * disk that answers fast). Then it makes that first write itself.
 *
 * A log that started over is written again from its start, over bytes it already has. Each
 * tick the thread also reads the next WAL_READ_AHEAD_BYTES past the log's end, so the app's
 * partial-page writes there find the pages in memory instead of waiting for the disk.
 */
export function startWalCheckpointer(
  db: Db,
  opts: {
    everyMs?: number;
    /** Pages of log past which it is started over (LONG_LOG_PAGES); a test writes less. */
    longLogPages?: number;
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
        longLogPages: opts.longLogPages ?? LONG_LOG_PAGES,
        readAheadBytes: WAL_READ_AHEAD_BYTES,
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
