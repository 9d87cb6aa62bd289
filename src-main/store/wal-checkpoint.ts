import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const WAL_CHECKPOINT_MS = 500;

/**
 * The checkpointer's thread: its own connection to the same file, a PASSIVE checkpoint every
 * `everyMs` (it never waits for or blocks a writer), a last one on 'stop'. Plain CommonJS
 * run with `eval` (no file of its own in the bundles); the driver's path comes resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (workerData.report) parentPort.postMessage({ checkpoint: r });
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
 */
export function startWalCheckpointer(
  db: Db,
  opts: {
    everyMs?: number;
    onError?: (message: string) => void;
    /** Hears each checkpoint's result: pages in the log, and pages copied into the database. */
    onCheckpoint?: (r: { busy: number; log: number; checkpointed: number }) => void;
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
  worker.on('message', (m: { error?: string; checkpoint?: { busy: number; log: number; checkpointed: number } }) => {
    if (m.error) opts.onError?.(`WAL checkpoint: ${m.error}`);
    if (m.checkpoint) opts.onCheckpoint?.(m.checkpoint);
  });
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
