import { Worker } from 'node:worker_threads';
import { TransferFailure } from './errors';
import { keptChangingWhileRead, notRegularFile, openFailure, readFailure } from './file-source';

/** Reads of a file whose size or mtime changed while it was read, after the first. */
export const MAX_REREADS_ON_CHANGE = 2;
/** The reader thread posts what it has read once it holds this many bytes... */
const POST_BYTES = 1024 * 1024;
/** ...or once its oldest unposted file waited this long (a slow disk does not hold the ones read before). */
const POST_MS = 2;

/** The synchronous file calls readSmallFile makes (node:fs's). */
export interface SyncFs {
  constants: { O_RDONLY: number; O_NONBLOCK?: number };
  openSync(path: string, flags: number): number;
  fstatSync(fd: number): { isFile(): boolean; size: number; mtimeMs: number };
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  closeSync(fd: number): void;
}

/** Where reading a small file failed, as data that crosses the thread; the main side rebuilds the TransferFailure. */
export type ReadStage = 'open' | 'read' | 'not-file' | 'changed';

export type SmallFileResult =
  | { kind: 'read'; data: Buffer; mtimeMs: number }
  | { kind: 'too-big'; size: number }
  | { kind: 'fail'; stage: ReadStage; code: string | undefined; message: string };

/**
 * Reads `path` whole when it is a regular file of at most `maxBytes`: open (non-blocking, so
 * a FIFO or a device fails as not a regular file instead of waiting for a writer), fstat,
 * read, fstat again; a size or mtime that changed meanwhile reads it again (at most
 * `maxRereads` times), one that keeps changing or grows past `maxBytes` is 'changed'.
 * Runs in the reader thread: its source is put in the thread's script as it is, so it uses
 * nothing but its parameters (no imports, no inner functions) and never throws.
 */
export function readSmallFile(fs: SyncFs, path: string, maxBytes: number, maxRereads: number): SmallFileResult {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { kind: 'fail', stage: 'open', code: (e as { code?: string }).code, message: (e as Error).message };
  }
  try {
    let st = fs.fstatSync(fd);
    if (!st.isFile()) return { kind: 'fail', stage: 'not-file', code: undefined, message: '' };
    let size = st.size;
    let mtimeMs = Math.floor(st.mtimeMs);
    if (size > maxBytes) return { kind: 'too-big', size };
    for (let rereads = 0; ; rereads++) {
      // Its own ArrayBuffer (not a slice of Buffer's pool): the thread hands it over whole.
      const data = Buffer.allocUnsafeSlow(size);
      let done = 0;
      while (done < size) {
        const n = fs.readSync(fd, data, done, size - done, done);
        if (n === 0) break;
        done += n;
      }
      st = fs.fstatSync(fd);
      if (!st.isFile()) return { kind: 'fail', stage: 'not-file', code: undefined, message: '' };
      const after = done < size ? Math.min(st.size, done) : st.size;
      const afterMtime = Math.floor(st.mtimeMs);
      if (after === size && afterMtime === mtimeMs) return { kind: 'read', data, mtimeMs };
      if (rereads >= maxRereads || after > maxBytes)
        return { kind: 'fail', stage: 'changed', code: undefined, message: '' };
      size = after;
      mtimeMs = afterMtime;
    }
  } catch (e) {
    return { kind: 'fail', stage: 'read', code: (e as { code?: string }).code, message: (e as Error).message };
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // closing a file we only read cannot lose anything
    }
  }
}

/** What the main thread sends: the files asked for in one turn. */
interface Asked {
  ids: number[];
  paths: string[];
  max: number[];
}

/** What the thread answers per file (a batch of them per message); `buffer` is transferred. */
type Answer =
  | { id: number; kind: 'read'; buffer: ArrayBuffer; length: number; mtimeMs: number }
  | { id: number; kind: 'too-big'; size: number }
  | { id: number; kind: 'fail'; stage: ReadStage; code: string | undefined; message: string };

/**
 * The reader thread: plain CommonJS run with `eval` (no file of its own in the bundles), with
 * readSmallFile's compiled source. It answers in batches: what it read since its last post,
 * posted at POST_BYTES, after POST_MS, and at the end of each request batch.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const readSmallFile = (${readSmallFile.toString()});
let out = [];
let transfer = [];
let bytes = 0;
let since = 0;
const post = () => {
  if (out.length === 0) return;
  parentPort.postMessage(out, transfer);
  out = [];
  transfer = [];
  bytes = 0;
};
parentPort.on('message', (m) => {
  for (let i = 0; i < m.ids.length; i++) {
    const r = readSmallFile(fs, m.paths[i], m.max[i], workerData.maxRereads);
    let a;
    if (r.kind === 'read') {
      a = { id: m.ids[i], kind: 'read', buffer: r.data.buffer, length: r.data.length, mtimeMs: r.mtimeMs };
      transfer.push(r.data.buffer);
      bytes += r.data.length;
    } else {
      a = r;
      a.id = m.ids[i];
    }
    if (out.length === 0) since = performance.now();
    out.push(a);
    if (bytes >= workerData.postBytes || performance.now() - since >= workerData.postMs) post();
  }
  post();
});
`;

/** A small file read whole, and the mtime it had. */
export interface SmallRead {
  data: Buffer;
  mtimeMs: number;
}

interface Request {
  id: number;
  path: string;
  maxBytes: number;
  resolve(r: SmallRead | undefined): void;
  reject(e: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Reader threads that stopped while this request was with them. */
  crashes: number;
}

/**
 * Reads an engine's small files (at most SMALL_FILE_MAX_BYTES, form uploads) whole, off the
 * main thread: a worker thread, started at the first read and ended by `close`, does the
 * open, fstat, read, fstat and close of each file with synchronous calls (a few µs each when
 * the page cache has the file; as long as the disk takes when not, which is why they are not
 * on the main thread, where a 0.5 s wait for a page held `serve`'s loop). The bytes come back
 * in the ArrayBuffer the thread read them into, transferred, not copied. Files asked for in
 * one event-loop turn go in one message, and the thread answers in batches, so a file costs
 * a fraction of a message each way instead of a thread-pool round trip per call.
 *
 * Failures come back as data and are rebuilt here as the same TransferFailure the engine has
 * always given (file-source.ts: openFailure, readFailure, not a regular file, kept changing).
 * A thread that dies is replaced: the reads it held are asked again of the next thread; a read
 * held by two threads that died fails as file-unreadable (a file that kills the reader does not
 * kill it forever). The thread is unref'd while no read waits, so it never keeps a process up.
 */
export class SmallFileReader {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Request>();
  private queue: Request[] = [];
  private flushQueued = false;
  private nextId = 1;
  private closed = false;
  private started = 0;

  /** `postBytes`, `postMs`: when the thread posts what it read (default 1 MiB, 2 ms). */
  constructor(private readonly opts: { postBytes?: number; postMs?: number } = {}) {}

  /**
   * The whole file and its mtime; undefined (nothing read) when it is larger than `maxBytes`.
   * Rejects with a TransferFailure, or with the signal's reason when it aborts first.
   */
  read(path: string, maxBytes: number, signal?: AbortSignal): Promise<SmallRead | undefined> {
    if (this.closed) return Promise.reject(new Error('the small-file reader is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const r: Request = { id: this.nextId++, path, maxBytes, resolve, reject, signal, onAbort: undefined, crashes: 0 };
      if (signal) {
        r.onAbort = () => {
          this.forget(r);
          reject(signal.reason);
        };
        signal.addEventListener('abort', r.onAbort, { once: true });
      }
      this.queue.push(r);
      this.flushSoon();
    });
  }

  /** Reader threads started so far (one, unless one died). */
  get threadsStarted(): number {
    return this.started;
  }

  /** The running thread, if any (a test ends it to show that a dead reader loses no read). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  /** Ends the thread; reads still waiting fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    const left = [...this.queue, ...this.waiting.values()];
    this.queue = [];
    this.waiting.clear();
    for (const r of left) this.settle(r, () => r.reject(new Error('the small-file reader closed')));
    await w?.terminate();
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    if (this.closed || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    let w: Worker;
    try {
      w = this.worker ?? this.spawn();
    } catch (e) {
      for (const r of batch) this.settle(r, () => r.reject(readFailure(r.path, e)));
      return;
    }
    const asked: Asked = { ids: [], paths: [], max: [] };
    for (const r of batch) {
      asked.ids.push(r.id);
      asked.paths.push(r.path);
      asked.max.push(r.maxBytes);
      this.waiting.set(r.id, r);
    }
    w.ref();
    w.postMessage(asked);
  };

  private spawn(): Worker {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        maxRereads: MAX_REREADS_ON_CHANGE,
        postBytes: this.opts.postBytes ?? POST_BYTES,
        postMs: this.opts.postMs ?? POST_MS,
      },
    });
    this.started++;
    this.worker = w;
    w.unref();
    let why = 'it exited';
    w.on('message', (answers: Answer[]) => this.answered(answers));
    w.on('error', (e) => {
      why = e.message;
    });
    w.on('exit', (code) => this.died(w, code === 0 ? why : `${why} (code ${code})`));
    return w;
  }

  private answered(answers: Answer[]): void {
    for (const a of answers) {
      const r = this.waiting.get(a.id);
      if (!r) continue; // aborted meanwhile: its bytes are dropped
      this.waiting.delete(a.id);
      if (a.kind === 'read')
        this.settle(r, () => r.resolve({ data: Buffer.from(a.buffer, 0, a.length), mtimeMs: a.mtimeMs }));
      else if (a.kind === 'too-big') this.settle(r, () => r.resolve(undefined));
      else this.settle(r, () => r.reject(failureOf(r.path, a)));
    }
    if (this.waiting.size === 0) this.worker?.unref();
  }

  /** A thread that stopped while reads waited on it: they go to the next thread, or fail after a second death. */
  private died(w: Worker, why: string): void {
    if (this.worker !== w) return; // closed, or already replaced
    this.worker = undefined;
    const again: Request[] = [];
    for (const r of this.waiting.values()) {
      r.crashes++;
      if (r.crashes < 2) again.push(r);
      else
        this.settle(r, () =>
          r.reject(
            new TransferFailure(
              'file-unreadable',
              `${r.path} could not be read: the reading thread stopped twice while it read it (${why})`,
            ),
          ),
        );
    }
    this.waiting.clear();
    if (again.length === 0 && this.queue.length === 0) return;
    this.queue = [...again, ...this.queue];
    this.flushSoon();
  }

  /** One flush after this turn, however many reads were asked in it. */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(this.flush);
  }

  private forget(r: Request): void {
    this.waiting.delete(r.id);
    const i = this.queue.indexOf(r);
    if (i >= 0) this.queue.splice(i, 1);
    if (this.waiting.size === 0) this.worker?.unref();
  }

  private settle(r: Request, end: () => void): void {
    if (r.onAbort) r.signal?.removeEventListener('abort', r.onAbort);
    end();
  }
}

/** The TransferFailure of a failed read, rebuilt from what crossed the thread. */
function failureOf(path: string, a: { stage: ReadStage; code: string | undefined; message: string }): TransferFailure {
  if (a.stage === 'not-file') return notRegularFile(path);
  if (a.stage === 'changed') return keptChangingWhileRead(path);
  const e = Object.assign(new Error(a.message), a.code === undefined ? {} : { code: a.code });
  return a.stage === 'open' ? openFailure(path, e) : readFailure(path, e);
}
