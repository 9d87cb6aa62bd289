import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { crc32ModuleFile } from '../base/crc32';
import { forEachUnitPiece } from '../protocol/etag';

/**
 * MD5, CRC-32 and the etag's unit SHA1s of chunk bodies, computed off the request thread
 * by a small pool of worker threads, so chunks of different blocks are hashed in parallel
 * and the request thread only copies bytes. Bytes reach a worker in batch buffers
 * (ArrayBuffers) that are transferred, not copied: the request thread writes a batch to the
 * block file, then hands the buffer over (it can no longer read it), and the worker gives
 * every buffer of a job back with the job's digests, to be used again. Plain ArrayBuffers
 * rather than SharedArrayBuffers: V8 copies into shared memory with a slow byte-safe loop
 * (about 0.37 CPU-s per GiB for the copy from the socket's pieces, against about 0.1 into a
 * plain buffer). The unit SHA1s are taken here for a body that starts on a unit boundary
 * (the usual 4 MiB chunks); a unit that spans chunks is finished by the block's
 * BlockUnitHasher on the request thread, which holds the running state between chunks.
 * Where units end is decided on the request thread by the protocol's `forEachUnitPiece`
 * (the one splitter of the etag): a batch that crosses a unit's end is sent with its
 * pieces, the first marked `closes`, and the worker only hashes what it is given.
 *
 * The worker is an inline script (node:crypto, and base/crc32.ts's CRC-32: the native
 * module's file, else node:zlib), so it needs no file of its own in any build of the app.
 */

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
// base/crc32.ts's native CRC-32 when the request thread uses it (the same module file), else node:zlib's.
let crc32 = null;
if (workerData && workerData.crc32File) {
  try {
    const native = require(workerData.crc32File);
    crc32 = (view, crc) => native.crc32(view, crc) >>> 0;
  } catch {
    crc32 = null;
  }
}
if (!crc32) {
  const zlib = require('node:zlib');
  crc32 = (view, crc) => (view.length === 0 ? crc : zlib.crc32(view, crc) >>> 0);
}
const jobs = new Map();
const job = (m) => {
  let j = jobs.get(m.id);
  if (!j) {
    j = { md5: createHash('md5'), crc: 0, units: m.units === true, sha: createHash('sha1'), fill: 0, done: [], buffers: [] };
    jobs.set(m.id, j);
  }
  return j;
};
parentPort.on('message', (m) => {
  if (m.op === 'begin') {
    job(m);
  } else if (m.op === 'data') {
    const j = job(m);
    j.buffers.push({ buffer: m.buffer, offset: m.offset, aligned: m.aligned });
    const view = new Uint8Array(m.buffer, m.offset, m.length);
    j.md5.update(view);
    j.crc = crc32(view, j.crc);
    if (j.units) {
      // Pieces within a unit (cut by forEachUnitPiece): start, end, closes (it ends its unit).
      const p = m.pieces;
      for (let i = 0; i < p.length; i += 3) {
        j.sha.update(p[i] === 0 && p[i + 1] === m.length ? view : view.subarray(p[i], p[i + 1]));
        j.fill += p[i + 1] - p[i];
        if (p[i + 2] === 1) {
          j.done.push(j.sha.digest());
          j.sha = createHash('sha1');
          j.fill = 0;
        }
      }
    }
  } else if (m.op === 'end') {
    const j = job(m);
    jobs.delete(m.id);
    if (j.units && m.endsBlock && j.fill > 0) j.done.push(j.sha.digest());
    const units = j.units ? new Uint8Array(j.done.length * 20) : null;
    j.done.forEach((d, i) => units.set(d, i * 20));
    // The job's buffers go back to the request thread, moved again (not copied).
    parentPort.postMessage(
      { id: m.id, md5Hex: j.md5.digest('hex'), crc32: j.crc >>> 0, units, buffers: j.buffers },
      j.buffers.map((b) => b.buffer),
    );
  } else if (m.op === 'drop') {
    jobs.delete(m.id);
  }
});
`;

export interface BodyHashes {
  /** Lowercase hex MD5. */
  md5Hex: string;
  /** Unsigned CRC-32. */
  crc32: number;
  /**
   * With `units`: the etag's SHA1 of every whole 4 MiB unit of the body (from its start),
   * and of the last partial one when `digest` was told the body ends its block; 20 bytes
   * each, concatenated. Null without `units`.
   */
  units: Uint8Array | null;
}

/** A buffer handed to a worker (and given back by `digest`): `length` bytes from `offset` are hashed. */
export interface HandedBuffer {
  buffer: ArrayBuffer;
  offset: number;
  /** Carried along for the owner (direct-io.ts: the memory at `offset` suits O_DIRECT). */
  aligned: boolean;
}

/** A job's digests and the buffers it was handed, in the order they were handed. */
export interface BodyDigest extends BodyHashes {
  buffers: HandedBuffer[];
}

interface PoolWorker {
  worker: Worker;
  /** Jobs begun on this worker and not yet ended or dropped. */
  open: number;
  waiting: Map<number, { resolve: (h: BodyDigest) => void; reject: (e: Error) => void }>;
}

/** One body's hashing on one worker: `update` as bytes arrive (in order), then `digest` once, or `drop`. */
export interface BodyHashJob {
  /**
   * Hands `length` bytes of `b.buffer` (from `b.offset`) over to the worker: the buffer is
   * transferred, so it is detached here (every view of it reads as empty) until `digest`
   * gives it back. After `drop`, or once the job ended, it is not sent (and stays usable).
   */
  update(b: HandedBuffer, length: number): void;
  /**
   * `endsBlock`: the body is its block's last chunk (its last partial unit gets a SHA1 too).
   * Resolves with the digests and every buffer handed over, in order.
   */
  digest(endsBlock?: boolean): Promise<BodyDigest>;
  /** Ends the job without digests: the buffers handed over are not given back. */
  drop(): void;
}

export class HashPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;
  private closed = false;

  /** `size` workers at most, started as needed; default: the cores but one, 2 to 4 (two blocks hash at once even on two cores). */
  constructor(private readonly size = Math.max(2, Math.min(4, availableParallelism() - 1))) {}

  /**
   * A job on the least busy worker (a new one while fewer than `size` run). `units`: also
   * the etag's unit SHA1s, for a body that starts on a unit boundary of its block.
   */
  begin(units = false): BodyHashJob {
    if (this.closed) throw new Error('the hash pool is closed');
    const w = this.pick();
    const id = this.nextId++;
    w.open++;
    if (units) w.worker.postMessage({ op: 'begin', id, units });
    /** Bytes of the unit in progress (with `units`), to cut the next batch where its unit ends. */
    let unitFill = 0;
    let ended = false;
    const end = () => {
      if (ended) return false;
      ended = true;
      w.open--;
      return true;
    };
    return {
      update: (b, length) => {
        if (ended) return;
        const pieces: number[] = [];
        if (units)
          unitFill = forEachUnitPiece(unitFill, length, (start, end, closes) =>
            pieces.push(start, end, closes ? 1 : 0),
          );
        w.worker.postMessage(
          { op: 'data', id, buffer: b.buffer, offset: b.offset, length, aligned: b.aligned, pieces },
          [b.buffer],
        );
      },
      digest: (endsBlock = false) =>
        new Promise<BodyDigest>((resolve, reject) => {
          if (!end()) return reject(new Error('hash job already ended'));
          if (this.closed) return reject(new Error('the hash pool closed'));
          // The worker handles messages in order: once it answers, it is done with every buffer.
          w.waiting.set(id, { resolve, reject });
          w.worker.postMessage({ op: 'end', id, endsBlock });
        }),
      drop: () => {
        if (end()) w.worker.postMessage({ op: 'drop', id });
      },
    };
  }

  /** Stops every worker; jobs still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.workers.splice(0);
    await Promise.all(all.map((w) => w.worker.terminate()));
    for (const w of all) this.fail(w, new Error('the hash pool closed'));
  }

  private pick(): PoolWorker {
    const idle = this.workers.reduce<PoolWorker | undefined>(
      (best, w) => (!best || w.open < best.open ? w : best),
      undefined,
    );
    if (idle && (idle.open === 0 || this.workers.length >= this.size)) return idle;
    return this.spawn();
  }

  private spawn(): PoolWorker {
    const w: PoolWorker = {
      worker: new Worker(WORKER_SOURCE, { eval: true, workerData: { crc32File: crc32ModuleFile() } }),
      open: 0,
      waiting: new Map(),
    };
    w.worker.unref();
    w.worker.on('message', (m: { id: number } & BodyDigest) => {
      const waiter = w.waiting.get(m.id);
      w.waiting.delete(m.id);
      waiter?.resolve({ md5Hex: m.md5Hex, crc32: m.crc32, units: m.units, buffers: m.buffers });
    });
    // A worker that dies takes its jobs with it; the next jobs go to a new one.
    const gone = (e: Error) => {
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      this.fail(w, e);
    };
    w.worker.on('error', gone);
    w.worker.on('exit', () => gone(new Error('a hashing worker stopped')));
    this.workers.push(w);
    return w;
  }

  private fail(w: PoolWorker, e: Error): void {
    for (const waiter of w.waiting.values()) waiter.reject(e);
    w.waiting.clear();
  }
}
