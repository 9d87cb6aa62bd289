import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { ServiceError } from '../protocol/errors';
import { BlockState } from './block-state';
import { uploadBlock, type BlockRound } from './block-upload';
import { complete, etagOfBlocks } from './complete';
import { TransferFailure, storeWrite } from './errors';
import { FileSource, SMALL_FILE_MAX_BYTES } from './file-source';
import { uploadSmallFile, type FormFile } from './form-upload';
import { copyIfStored } from './same-bytes';
import { planBlocks, type ChunkSizer } from './plan';
import type { TransferRecord } from './ports';
import { decide, type CallName, type Decision, type RetryState } from './retry';
import type { IssuedToken } from './tokens';
import type { Stops, UploadDeps, UploadHooks, UploadOutcome } from './upload-deps';
import { UploadToken } from './upload-token';

const MAX_RESTARTS_ON_CHANGE = 2;

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
    /**
     * `maybeSmall: false`: the admission's stat found the file larger than a form upload, so
     * it is not offered to the small-file reader (whose thread would start only to answer
     * "too big": about 25 ms of CPU). Its own stat below still decides.
     */
    private readonly admitted: { maybeSmall: boolean } = { maybeSmall: true },
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
    const copied = await copyIfStored({ deps: this.deps, rec: this.rec, hooks: this.hooks }, signal);
    if (copied) return copied;
    // Read whole off the main thread (small-reader.ts); undefined when larger.
    const small = this.admitted.maybeSmall
      ? await this.deps.reader.read(
          this.rec.localPath,
          Math.min(SMALL_FILE_MAX_BYTES, this.deps.formUploadMaxBytes),
          signal.soft,
        )
      : undefined;
    if (small) return await this.formUpload(small, signal);
    try {
      this.file = await FileSource.open(this.rec.localPath);
      const st = await this.file.stat();
      if (st.size <= this.deps.formUploadMaxBytes) return await this.formUpload({ source: this.file, ...st }, signal);
      for (let restarts = 0; ; restarts++) {
        // The first round plans from the stat just taken; a restart (the file changed) stats again.
        await this.prepare(restarts === 0 ? st : await this.file.stat());
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
        // A pause or cancel that came while the last chunks were in flight: they committed,
        // and the transfer stops here (a resume goes straight to mkfile).
        if (signal.soft.aborted) throw signal.soft.reason;
        this.hooks.phase('completing');
        return await complete(
          {
            deps: this.deps,
            rec: this.rec,
            tokens: this.tokens,
            etag: etagOfBlocks(this.size, this.blocks),
            call: 'mkfile',
            send: (token, callback, stops) =>
              this.deps.client.mkfile({
                callback,
                token,
                fileSize: this.size,
                batch: this.batch,
                ctxs: this.blocks.map((b) => b.lastCtx!),
                key: this.tokens.currentKey,
                mimeType: this.rec.options.mimeType,
                deadlineDays: this.rec.options.deadlineDays,
                vars: this.rec.options.vars,
                signal: stops.hard,
              }),
            decide: (e, call, tok, attempt) => this.decideOn(e, call, tok, attempt),
            retried: (reason, delayMs, about) => this.hooks.retried(reason, delayMs, about),
            log: (line) => this.hooks.log(line),
            reuploadBlocks: (stops) => this.reuploadBlocks(stops),
          },
          signal,
        );
      }
    } finally {
      await this.file?.close();
    }
  }

  private formUpload(file: FormFile, signal: Stops) {
    return uploadSmallFile(
      {
        deps: this.deps,
        rec: this.rec,
        hooks: this.hooks,
        file,
        tokens: this.tokens,
        decide: (e, call, tok, attempt) => this.decideOn(e, call, tok, attempt),
      },
      signal,
    );
  }

  /** Restores the stored blocks when the file is unchanged, else plans a new batch. */
  private async prepare(st: { size: number; mtimeMs: number }): Promise<void> {
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
      storeWrite(() => this.deps.store.resetBlocks(this.rec.id, this.batch, this.size, this.mtimeMs, sizes));
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
        if (!fresh || !(await b.restore(row, this.file!, scratch))) {
          b.reset();
          if (row.nextOffset > 0) storeWrite(() => this.deps.store.resetBlock(this.rec.id, row.index));
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
    // As many workers as the window may ever allow this file; its gate (scheduler.fileGate,
    // following the window) and the global semaphores decide how many run at once.
    // Every block worker waits on these (semaphores, limiter, requests): not a leak.
    const n = Math.min(this.deps.scheduler.blocksPerFileCeiling, pending.length);
    setMaxListeners(8 * n + 16, soft.signal, hard.signal);
    const round = this.round();
    const { gate, dispose } = this.deps.scheduler.fileGate();
    let firstError: unknown;
    const worker = async () => {
      for (;;) {
        if (pending.length === 0) return;
        const releaseGate = await gate.acquire(1, this.rec.priority, inner.soft);
        const b = pending.shift();
        if (!b) {
          releaseGate();
          return;
        }
        let release: (() => void) | undefined;
        let releaseRequest: (() => void) | undefined;
        try {
          release = await this.deps.scheduler.blocks.acquire(1, this.rec.priority, inner.soft);
          releaseRequest = await this.deps.scheduler.requests.acquire(1, this.rec.priority, inner.soft);
          await uploadBlock(round, b, inner);
        } finally {
          releaseRequest?.();
          release?.();
          releaseGate();
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
      dispose();
      outer.soft.removeEventListener('abort', onSoft);
      outer.hard.removeEventListener('abort', onHard);
    }
    if (firstError !== undefined) throw outer.soft.aborted ? outer.soft.reason : firstError;
  }

  private decideOn(
    e: ServiceError,
    call: CallName,
    tok: IssuedToken | undefined,
    attempt: number,
    refreshedBefore = false,
  ): Decision {
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
        tokenFresh: refreshedBefore || this.tokens.refusedFresh(tok),
      },
      state,
      this.deps.random(),
      this.deps.backoff,
    );
  }

  private missingRounds = 0;

  /** What the blocks of this round share: the file, the batch and the token as they are now. */
  private round(): BlockRound {
    return {
      deps: this.deps,
      transferId: this.rec.id,
      priority: this.rec.priority,
      file: this.file!,
      sizer: this.sizer,
      tokens: this.tokens,
      batch: this.batch,
      decide: (e, call, tok, attempt, refreshedBefore) => this.decideOn(e, call, tok, attempt, refreshedBefore),
      retried: (reason, delayMs, about) => this.hooks.retried(reason, delayMs, about),
      progressed: () => this.reportProgress(),
    };
  }

  /** 412 or a refused block list: every block is set back and uploaded again. */
  private async reuploadBlocks(stops: Stops): Promise<void> {
    this.missingRounds++;
    for (const b of this.blocks) {
      b.reset();
      storeWrite(() => this.deps.store.resetBlock(this.rec.id, b.index));
    }
    this.hooks.phase('uploading');
    this.reportProgress();
    await this.uploadBlocks(stops);
    this.hooks.phase('completing');
  }
}
