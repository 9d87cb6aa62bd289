import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { crc32 } from 'node:zlib';
import type { UploadClient } from '../protocol/client';
import { ServiceError, isServiceError } from '../protocol/errors';
import { etagFromUnitDigests } from '../protocol/etag';
import { BlockState } from './block-state';
import { FileSource } from './file-source';
import type { BufferPool } from './buffers';
import { TransferFailure, sleep } from './errors';
import type { BandwidthLimiter } from './limiter';
import { planBlocks, type ChunkSizer } from './plan';
import type { EngineStore, TransferRecord } from './ports';
import { FAILURE_HINTS, decide, type BackoffPolicy, type CallName, type Decision, type RetryState } from './retry';
import type { Scheduler } from './scheduler';
import type { IssuedToken, TokenProvider } from './tokens';
import { UploadToken, tokenHasCallback } from './upload-token';
import { createHash } from 'node:crypto';
import { renamedKey } from './conflict';

/** What one file upload uses; owned by the engine, shared by all its transfers. */
export interface UploadDeps {
  store: EngineStore;
  client: UploadClient;
  tokens: TokenProvider;
  scheduler: Scheduler;
  limiter: BandwidthLimiter;
  /** The chunk sizer of a transfer with this block size (adaptive up to it, or the engine's fixed one). */
  sizerFor(blockSizeBytes: number): ChunkSizer;
  /** Read buffers, taken per chunk while its bytes are in flight. */
  buffers: BufferPool;
  backoff: BackoffPolicy;
  /** Blocks whose first chunk is older than this are uploaded again (the service purges them). */
  purgeAgeMs: number;
  /** A token this close to its deadline is replaced before use. */
  tokenMarginMs: number;
  random: () => number;
  now: () => number;
  /**
   * Shared by the engine's uploads: set when a reply's crc32 did not match a chunk after
   * the first of its block; from then on blocks track their CRC so far and pass it as
   * crcBefore (a service answering block-so-far CRCs costs one extra CRC pass per chunk).
   */
  crc: { trackBlockCrc: boolean };
}

/** How a file upload ended, when it did not throw. */
export interface UploadOutcome {
  state: 'done' | 'skipped';
  key: string;
  etag: string;
  remoteHash: string | null;
  returnBody: Record<string, unknown> | null;
  warning: string | null;
}

export interface UploadHooks {
  /** The transfer moved to another running phase. */
  phase(state: 'uploading' | 'completing'): void;
  /** Bytes acknowledged so far changed (after each chunk, or set back by a restart). */
  progress(bytesDone: number, totalBytes: number): void;
  /** A retry happened: the engine counts attempts and logs. */
  retried(reason: string): void;
}

const MAX_RESTARTS_ON_CHANGE = 2;
/** A block whose ctx is refused this many times (even with progress between) fails the transfer. */
const MAX_BLOCK_RESTARTS = 10;
const MAX_RENAMES = 100;

/**
 * How a running upload is stopped. `soft` (pause, shutdown) stops between chunks: a chunk
 * already sent is awaited and committed, so its block's ctx chain stays usable on resume.
 * `hard` (cancel) also aborts requests in flight. Aborting `hard` must abort `soft` too.
 */
export interface Stops {
  soft: AbortSignal;
  hard: AbortSignal;
}

/**
 * Uploads one transfer: plans (or restores) its blocks, uploads them in parallel under the
 * scheduler, checks the file did not change, merges with mkfile and compares the service's
 * hash with the etag computed while reading. Resolves with the outcome; rejects with a
 * TransferFailure (the transfer failed), or with the soft signal's reason when stopped.
 */
export class FileUpload {
  private file: FileSource | undefined;
  private blocks: BlockState[] = [];
  private readonly tokens: UploadToken;
  private batch = '';
  private size = 0;
  private mtimeMs = 0;
  private readonly sizer: ChunkSizer;

  constructor(
    private rec: TransferRecord,
    private readonly deps: UploadDeps,
    private readonly hooks: UploadHooks,
  ) {
    this.sizer = deps.sizerFor(rec.blockSize);
    this.tokens = new UploadToken(
      deps.tokens,
      rec.bucket,
      rec.key,
      rec.options.conflict === 'overwrite',
      deps.now,
      deps.tokenMarginMs,
    );
  }

  async run(signal: Stops): Promise<UploadOutcome> {
    try {
      this.file = await FileSource.open(this.rec.localPath);
      for (let restarts = 0; ; restarts++) {
        await this.prepare();
        this.hooks.phase('uploading');
        this.reportProgress();
        await this.uploadBlocks(signal);
        if (await this.file.changedSince(this.size, this.mtimeMs)) {
          if (restarts >= MAX_RESTARTS_ON_CHANGE)
            throw new TransferFailure(
              'file-changed',
              `${this.rec.localPath} kept changing while it was uploaded; upload it again when it is complete`,
            );
          await this.reopen();
          continue;
        }
        this.hooks.phase('completing');
        return await this.complete(signal);
      }
    } finally {
      await this.file?.close();
    }
  }

  /** Restores the stored blocks when the file is unchanged, else plans a new batch. */
  private async prepare(): Promise<void> {
    const file = this.file!;
    const st = await file.stat();
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
    const sizes = planBlocks(this.size, this.rec.blockSize);
    const rows = this.rec.batch ? this.deps.store.listBlocks(this.rec.id) : [];
    const unchanged =
      this.rec.batch !== null &&
      this.rec.size === this.size &&
      this.rec.mtimeMs === this.mtimeMs &&
      rows.length === sizes.length &&
      rows.every((r, i) => r.size === sizes[i]);
    this.blocks = sizes.map((s, i) => new BlockState(i, i * this.rec.blockSize, s));
    if (!unchanged) {
      this.batch = randomUUID();
      this.dbWrite(() => this.deps.store.resetBlocks(this.rec.id, this.batch, this.size, this.mtimeMs, sizes));
      this.rec = { ...this.rec, batch: this.batch, size: this.size, mtimeMs: this.mtimeMs };
      return;
    }
    this.batch = this.rec.batch!;
    const now = this.deps.now();
    const scratch = this.deps.buffers.take();
    try {
      for (const row of rows) {
        const b = this.blocks[row.index];
        if (!b) continue;
        const fresh = row.ctxTimeMs !== null && now - row.ctxTimeMs < this.deps.purgeAgeMs;
        if (!fresh || !(await b.restore(row, file.handle, scratch))) {
          b.reset();
          if (row.nextOffset > 0) this.dbWrite(() => this.deps.store.resetBlock(this.rec.id, row.index));
        }
      }
    } finally {
      this.deps.buffers.give(scratch);
    }
  }

  private async reopen(): Promise<void> {
    await this.file?.close();
    this.file = await FileSource.open(this.rec.localPath);
    this.rec = { ...this.rec, batch: null };
  }

  private bytesDone(): number {
    let n = 0;
    for (const b of this.blocks) n += b.nextOffset;
    return n;
  }

  private reportProgress(): void {
    this.hooks.progress(this.bytesDone(), this.size);
  }

  /**
   * Blocks in parallel (per-file and global limits). The first failure (or a stop) stops the
   * others softly: each finishes and commits the chunk it has sent, since the service may
   * already have taken it, and a reply thrown away would leave that block's stored ctx used
   * up (the resume would send the block again). Only the outer hard signal cuts requests.
   */
  private async uploadBlocks(outer: Stops): Promise<void> {
    const pending = this.blocks.filter((b) => !b.done);
    if (pending.length === 0) return;
    const soft = new AbortController();
    const hard = new AbortController();
    const onSoft = () => soft.abort(outer.soft.reason);
    const onHard = () => hard.abort(outer.hard.reason);
    if (outer.soft.aborted) onSoft();
    else outer.soft.addEventListener('abort', onSoft, { once: true });
    if (outer.hard.aborted) onHard();
    else outer.hard.addEventListener('abort', onHard, { once: true });
    const inner: Stops = { soft: soft.signal, hard: hard.signal };
    // Every block worker waits on these (semaphores, limiter, requests): not a leak.
    const n = Math.min(this.deps.scheduler.limits.maxBlocksPerFile, pending.length);
    setMaxListeners(8 * n + 16, soft.signal, hard.signal);
    let firstError: unknown;
    const worker = async () => {
      for (;;) {
        const b = pending.shift();
        if (!b) return;
        const release = await this.deps.scheduler.blocks.acquire(1, this.rec.priority, inner.soft);
        try {
          await this.uploadBlock(b, inner);
        } finally {
          release();
        }
      }
    };
    try {
      await Promise.all(
        Array.from({ length: n }, () =>
          worker().catch((e: unknown) => {
            if (firstError === undefined) {
              firstError = e;
              soft.abort(e);
            }
          }),
        ),
      );
    } finally {
      outer.soft.removeEventListener('abort', onSoft);
      outer.hard.removeEventListener('abort', onHard);
    }
    if (firstError !== undefined) throw outer.soft.aborted ? outer.soft.reason : firstError;
  }

  /** Chunks of one block strictly in order, each committed after its reply. */
  private async uploadBlock(b: BlockState, stops: Stops): Promise<void> {
    const signal = stops.soft;
    const { client, scheduler, limiter, buffers } = this.deps;
    const sizer = this.sizer;
    let attempt = 0;
    let restarts = 0;
    while (!b.done) {
      const offset = b.nextOffset;
      const chunkBytes = sizer.chunkBytes;
      const len = Math.min(chunkBytes, b.size - offset);
      const releaseBytes = await scheduler.bytes.acquire(len, this.rec.priority, signal);
      // Sized by the sizer's choice (few distinct sizes, reused), held only while in flight.
      const buf = buffers.take(chunkBytes);
      let call: CallName = offset === 0 ? 'mkblk' : 'bput';
      let tok: IssuedToken | undefined;
      try {
        const chunk = buf.subarray(0, len);
        await this.file!.readAt(chunk, b.fileOffset + offset);
        await limiter.take(len, signal);
        call = 'token';
        tok = await this.tokens.current(signal);
        call = offset === 0 ? 'mkblk' : 'bput';
        const track = this.deps.crc.trackBlockCrc && offset > 0;
        // A restored block's CRC so far is read back from disk once (its spare buffer space).
        if (track && b.crcSoFar === undefined)
          b.crcSoFar = await this.file!.crc32Of(
            b.fileOffset,
            offset,
            buf.length - len >= 64 * 1024 ? buf.subarray(len) : Buffer.allocUnsafe(1024 * 1024),
          );
        const t0 = performance.now();
        const common = {
          token: tok.token,
          batch: this.batch,
          key: this.tokens.currentKey,
          chunk,
          signal: stops.hard,
          crcBefore: track ? b.crcSoFar : undefined,
        };
        const pending =
          offset === 0
            ? client.mkblk({ ...common, blockSize: b.size, blockOrder: b.index })
            : client.bput({ ...common, ctx: b.lastCtx!, offset });
        const hashed = b.hashChunk(chunk); // overlaps with the request in flight
        const reply = await pending;
        sizer.observe(len, performance.now() - t0);
        if (reply.offset !== offset + len) {
          throw new ServiceError({
            kind: 'bad-reply',
            endpoint: call,
            code: 'bad-offset',
            message: `the service acknowledged offset ${reply.offset} after a chunk ending at ${offset + len}`,
          });
        }
        const crcAfter =
          this.deps.crc.trackBlockCrc && (offset === 0 || b.crcSoFar !== undefined)
            ? crc32(chunk, offset === 0 ? 0 : b.crcSoFar)
            : undefined;
        b.acknowledge(reply.offset, reply.ctx, hashed, this.deps.now());
        b.crcSoFar = crcAfter;
        this.dbWrite(() =>
          this.deps.store.commitChunk(this.rec.id, b.index, b.nextOffset, b.lastCtx!, b.startedMs!, b.unitSha1s()),
        );
        this.tokens.accepted(tok);
        attempt = 0;
        this.reportProgress();
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        if (!isServiceError(e)) throw e;
        attempt++;
        let d = this.decideOn(e, call, tok, attempt);
        if (e.code === 'crc32-mismatch' && offset > 0 && !this.deps.crc.trackBlockCrc) {
          // Maybe the service answers the CRC of the block so far: the chunk was taken and
          // its ctx used, so this block starts over, now tracking its CRC.
          this.deps.crc.trackBlockCrc = true;
          d = { action: 'restart-block', delayMs: 0 };
        }
        this.hooks.retried(`${e.message} → ${d.action}`);
        switch (d.action) {
          case 'retry':
          case 'resend-chunk':
            await sleep(d.delayMs, signal);
            break;
          case 'restart-block':
            if (++restarts > MAX_BLOCK_RESTARTS) {
              throw new TransferFailure(
                'ctx-rejected',
                `the service refused the upload context of block ${b.index} ${MAX_BLOCK_RESTARTS} times; last answer: ${e.message}`,
                { cause: e },
              );
            }
            b.reset();
            this.dbWrite(() => this.deps.store.resetBlock(this.rec.id, b.index));
            this.reportProgress();
            await sleep(d.delayMs, signal);
            break;
          case 'refresh-token':
            await this.tokens.refresh(tok, signal);
            break;
          default:
            throw failureFrom(e, d);
        }
      } finally {
        buffers.give(buf);
        releaseBytes();
      }
    }
  }

  private decideOn(e: ServiceError, call: CallName, tok: IssuedToken | undefined, attempt: number): Decision {
    const state: RetryState = {
      attempt,
      conflict: this.rec.options.conflict ?? 'skip',
      missingBlockRounds: this.missingRounds,
    };
    return decide(
      {
        call: e.endpoint === 'token' ? 'token' : call,
        kind: e.kind,
        status: e.status,
        code: e.code,
        tokenExpired: this.tokens.expired(tok),
        tokenFresh: this.tokens.refusedFresh(tok),
      },
      state,
      this.deps.random(),
      this.deps.backoff,
    );
  }

  private missingRounds = 0;

  /** mkfile, with the conflict policy, 412 handling and the hash check. */
  private async complete(stops: Stops): Promise<UploadOutcome> {
    const signal = stops.soft;
    const etag = this.etag();
    let attempt = 0;
    let renames = 0;
    for (;;) {
      let tok: IssuedToken | undefined;
      let call: CallName = 'token';
      try {
        tok = await this.tokens.current(signal);
        call = 'mkfile';
        const callback = tokenHasCallback(tok.token);
        const r = await this.deps.client.mkfile({
          callback,
          token: tok.token,
          fileSize: this.size,
          batch: this.batch,
          ctxs: this.blocks.map((b) => b.lastCtx!),
          key: this.tokens.currentKey,
          mimeType: this.rec.options.mimeType,
          deadlineDays: this.rec.options.deadlineDays,
          vars: this.rec.options.vars,
          signal: stops.hard,
        });
        const key = r.key ?? this.tokens.currentKey;
        this.tokens.accepted(tok);
        if (r.hash === null) {
          // Only with a callback: the reply is the callback's answer, stored but not comparable.
          return {
            state: 'done',
            key,
            etag,
            remoteHash: null,
            returnBody: r.body,
            warning: `stored; the reply was the callback's answer without the service's hash, so the hash could not be compared (not verified)`,
          };
        }
        if (r.hash !== etag) {
          throw new TransferFailure(
            'hash-mismatch',
            `integrity check failed: the service stored hash ${r.hash} but the file read as ${etag}; the object under "${key}" is not this file`,
          );
        }
        return { state: 'done', key, etag, remoteHash: r.hash, returnBody: r.body, warning: null };
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        if (!isServiceError(e)) throw e;
        attempt++;
        const d = this.decideOn(e, call, tok, attempt);
        this.hooks.retried(`${e.message} → ${d.action}`);
        switch (d.action) {
          case 'retry':
          case 'resend-chunk':
          case 'restart-block':
            await sleep('delayMs' in d ? d.delayMs : 0, signal);
            break;
          case 'refresh-token':
            await this.tokens.refresh(tok, signal);
            break;
          case 'reupload-blocks':
            this.missingRounds++;
            for (const b of this.blocks) {
              b.reset();
              this.dbWrite(() => this.deps.store.resetBlock(this.rec.id, b.index));
            }
            this.hooks.phase('uploading');
            this.reportProgress();
            await this.uploadBlocks(stops);
            this.hooks.phase('completing');
            break;
          case 'conflict':
            if (d.policy === 'skip') {
              const key = this.tokens.currentKey;
              return {
                state: 'skipped',
                key,
                etag,
                remoteHash: null,
                returnBody: null,
                warning: `"${key}" already exists in ${this.rec.bucket}; skipped (conflict policy skip)`,
              };
            }
            if (d.policy === 'overwrite' && !this.tokens.overwriting) {
              this.tokens.retarget(this.tokens.currentKey, true);
              break;
            }
            if (d.policy === 'rename' && renames < MAX_RENAMES) {
              renames++;
              this.tokens.retarget(renamedKey(this.rec.requestedKey, renames), this.tokens.overwriting);
              break;
            }
            throw new TransferFailure(
              'conflict',
              `"${this.tokens.currentKey}" already exists and could not be replaced: ${e.serviceMessage}`,
            );
          case 'done-with-warning':
            return {
              state: 'done',
              key: this.tokens.currentKey,
              etag,
              remoteHash: null,
              returnBody: null,
              warning: `stored, but the service reported: ${e.serviceMessage} (hash not returned; not uploaded again)`,
            };
          default:
            throw failureFrom(e, d);
        }
      }
    }
  }

  private etag(): string {
    if (this.size === 0) return etagFromUnitDigests([createHash('sha1').digest()]);
    return etagFromUnitDigests(this.blocks.flatMap((b) => b.unitDigests()));
  }

  /** Runs a store write; a failure (disk full, read-only) fails the transfer with a clear code. */
  private dbWrite(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      throw new TransferFailure(
        'db-write-failed',
        `could not save upload progress to the database (${(e as { code?: string }).code ?? (e as Error).message}); is its disk full or read-only?`,
        { cause: e },
      );
    }
  }
}

function failureFrom(e: ServiceError, d: Decision): TransferFailure {
  const code = d.action === 'fail' ? d.code : 'unexpected';
  const hint = FAILURE_HINTS[code];
  const detail = e.message;
  return new TransferFailure(code, hint ? `${hint} (${detail})` : detail, { cause: e });
}
