import type { MgrClient, UploadClient } from '../protocol/client';
import type { StoredObjectInfo } from '../protocol/types';
import type { FmgrOp, FmgrOpName } from '../shared/fmgr-ops';
import type { ConflictPolicy } from '../shared/models';
import { BufferPool } from './buffers';
import { TransferFailure } from './errors';
import { BandwidthLimiter } from './limiter';
import {
  ChunkSizer,
  DEFAULT_BLOCK_SIZE_BYTES,
  INITIAL_CHUNK_SIZE_BYTES,
  checkBlockSize,
  chunkLimitBytes,
} from './plan';
import type { EngineStore } from './ports';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './retry';
import { Scheduler, type SchedulerLimits } from './scheduler';
import { SmallFileReader } from './small-reader';
import type { TokenProvider } from './tokens';
import type { UploadDeps } from './upload-deps';
import { DEFAULT_COPY_MIN_BYTES } from './same-bytes';

export const DEFAULT_FORM_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What the service stores under a key (MgrClient.stat: `GET /stat/<entry>` with a
 * management token), null when nothing. Throws when it cannot tell (no management URL, no
 * secret to sign with, network, refused): the Error's message says why.
 */
export type StoredObjectLookup = (bucket: string, key: string, signal: AbortSignal) => Promise<StoredObjectInfo | null>;

/** How the engine reaches an account: its upload client and token source. */
export interface AccountAccess {
  client: UploadClient;
  tokens: TokenProvider;
  /**
   * Asked when mkfile or a form upload meets 406 (the key exists): an object whose hash is
   * the file's etag is this file, and the transfer ends done (complete.ts). Without it a
   * 406 goes to the conflict policy unchecked.
   */
  stored?: StoredObjectLookup;
  /**
   * Fmgr submission and status (the account's MgrClient with AK/SK): with `stored`, a file
   * whose bytes this account already stored is copied on the service instead of uploaded
   * (same-bytes.ts). Without it every file is uploaded.
   */
  fmgr?: FmgrAccess;
}

/** The transfer an Fmgr operation of the engine is made for, and the key it writes or removes. */
export interface FmgrTaskFor {
  transferId: number;
  key: string;
}

/**
 * What the engine uses of the management API to copy on the service (a MgrClient has it).
 * Each submission names the transfer it is made for (`forTransfer`): the service records the
 * task with the Fmgr tasks the app follows, labelled as that transfer's (service/engine-fmgr.ts),
 * so the Tasks screen shows it like any other; a bare MgrClient ignores it.
 */
export interface FmgrAccess {
  fmgrSubmit(
    op: FmgrOpName,
    ops: readonly FmgrOp[],
    opts: { force?: 0 | 1 },
    signal?: AbortSignal,
    forTransfer?: FmgrTaskFor,
  ): Promise<{ persistentId: string }>;
  fmgrStatus: MgrClient['fmgrStatus'];
}

export interface EngineOptions {
  store: EngineStore;
  /** Resolves an account id; called once per account and cached. Throws for an unknown id. */
  account(accountId: number): AccountAccess;
  limits?: Partial<SchedulerLimits>;
  /**
   * Whether the counts in flight (blocks, blocks per file, small files, requests) grow from
   * `limits` with the measured round trip (window.ts); default true: small files only;
   * 'with-blocks': blocks too; false keeps them fixed.
   */
  adaptiveWindow?: boolean | 'with-blocks';
  /** Bytes per second for all transfers together; null for no limit. */
  bandwidthBytesPerSec?: number | null;
  /** Fixed chunk size in bytes; default adaptive between 256 KiB and maxChunkBytes. */
  chunkBytes?: number;
  /** Largest chunk (and read buffer); default the transfer's block size. */
  maxChunkBytes?: number;
  defaultBlockSize?: number;
  /**
   * Files of at most this many bytes go through form upload: one request instead of
   * mkblk + mkfile, verified the same way, not resumable (nothing to resume). Default 4 MiB
   * (one block, as the official SDKs do); 0 sends every file in blocks.
   */
  formUploadMaxBytes?: number;
  defaultConflict?: ConflictPolicy;
  /**
   * A file of at least this many bytes whose bytes (etag) this account already stored is
   * copied on the service from that object (Fmgr copy) instead of being uploaded, when the
   * account has `stored` and `fmgr` (same-bytes.ts; default DEFAULT_COPY_MIN_BYTES; Infinity
   * turns it off).
   */
  copyMinBytes?: number;
  backoff?: Partial<BackoffPolicy>;
  purgeAgeMs?: number;
  tokenMarginMs?: number;
  random?: () => number;
  now?: () => number;
}

/** What `UploadEngine.reconfigure` changes while uploads run; a missing field stays as it is. */
export interface EngineTuning {
  limits?: Partial<SchedulerLimits>;
  /** Fixed chunk size; null: adaptive again. */
  chunkBytes?: number | null;
  defaultBlockSize?: number;
  defaultConflict?: ConflictPolicy;
}

/**
 * What the engine's uploads share, built once from its options: the scheduler, the
 * bandwidth limiter, the read buffers, the CRC mode, and each account's client and token
 * source (resolved on first use and cached), the small-file reader. `depsFor` gives a file
 * upload all of it; `close` ends the reader's thread.
 */
export class UploadResources {
  readonly scheduler: Scheduler;
  readonly limiter: BandwidthLimiter;
  /** Set with opts.chunkBytes; else each transfer gets its own adaptive sizer (sizerFor). */
  private fixedSizer: ChunkSizer | undefined;
  private readonly buffers: BufferPool;
  private readonly accounts = new Map<number, AccountAccess>();
  private readonly crcMode = { trackBlockCrc: false };
  private readonly reader = new SmallFileReader();
  /** What a transfer enqueued without its own gets (reconfigure changes them). */
  readonly defaults: { blockSize: number; conflict: ConflictPolicy };

  constructor(private readonly opts: EngineOptions) {
    this.defaults = {
      blockSize: opts.defaultBlockSize ?? DEFAULT_BLOCK_SIZE_BYTES,
      conflict: opts.defaultConflict ?? 'skip',
    };
    checkBlockSize(this.defaults.blockSize);
    const adaptive = opts.adaptiveWindow ?? true;
    this.scheduler = new Scheduler(opts.limits, {
      adaptive: adaptive === false ? false : { blocks: adaptive === 'with-blocks' },
    });
    this.limiter = new BandwidthLimiter(opts.bandwidthBytesPerSec ?? null);
    this.fixedSizer = fixedSizer(opts.chunkBytes);
    this.buffers = new BufferPool(
      this.fixedSizer?.maxBytes ?? INITIAL_CHUNK_SIZE_BYTES,
      this.scheduler.limits.maxBlocks,
    );
  }

  /** Files up to this size go through form upload (EngineOptions.formUploadMaxBytes). */
  get formUploadMaxBytes(): number {
    return this.opts.formUploadMaxBytes ?? DEFAULT_FORM_UPLOAD_MAX_BYTES;
  }

  /**
   * Tuning while uploads run. Limits apply at the next admission (what is admitted keeps
   * going). A file already uploading keeps the sizer it took at its start (its blocks in
   * flight finish with their sizes); files that start later use the new chunk size (null:
   * adaptive again). Block size and conflict policy reach transfers enqueued from now on.
   * Everything is checked before anything changes (PlanError, RangeError).
   */
  reconfigure(change: EngineTuning): void {
    if (change.defaultBlockSize !== undefined) checkBlockSize(change.defaultBlockSize);
    if (change.chunkBytes != null && (!Number.isSafeInteger(change.chunkBytes) || change.chunkBytes < 1))
      throw new RangeError(`chunkBytes must be a whole number of 1 or more, not ${change.chunkBytes}`);
    if (change.limits) this.scheduler.setLimits(change.limits);
    if (change.chunkBytes !== undefined) this.fixedSizer = fixedSizer(change.chunkBytes ?? undefined);
    if (change.defaultBlockSize !== undefined) this.defaults.blockSize = change.defaultBlockSize;
    if (change.defaultConflict !== undefined) this.defaults.conflict = change.defaultConflict;
  }

  /** Ends the small-file reader's thread (once no upload runs). */
  close(): Promise<void> {
    return this.reader.close();
  }

  /** Forgets an account's cached client and token source; the next depsFor resolves it again. */
  forgetAccount(accountId: number): void {
    this.accounts.delete(accountId);
  }

  /** Everything one file upload of this account uses; a TransferFailure 'no-account' when it cannot be resolved. */
  depsFor(accountId: number): UploadDeps {
    let acc = this.accounts.get(accountId);
    if (!acc) {
      try {
        acc = this.opts.account(accountId);
      } catch (e) {
        throw new TransferFailure('no-account', `account ${accountId} cannot be used: ${(e as Error).message}`);
      }
      this.accounts.set(accountId, acc);
    }
    return {
      store: this.opts.store,
      client: acc.client,
      tokens: acc.tokens,
      stored: acc.stored,
      fmgr: acc.fmgr,
      copyMinBytes: this.opts.copyMinBytes ?? DEFAULT_COPY_MIN_BYTES,
      scheduler: this.scheduler,
      limiter: this.limiter,
      sizerFor: (blockSizeBytes) => this.sizerFor(blockSizeBytes),
      buffers: this.buffers,
      backoff: { ...DEFAULT_BACKOFF, ...this.opts.backoff },
      formUploadMaxBytes: this.formUploadMaxBytes,
      reader: this.reader,
      purgeAgeMs: this.opts.purgeAgeMs ?? 25 * 24 * 3600_000,
      tokenMarginMs: this.opts.tokenMarginMs ?? 5000,
      random: this.opts.random ?? Math.random,
      now: this.opts.now ?? Date.now,
      crc: this.crcMode,
    };
  }

  /** The chunk sizer of a transfer: adaptive between 256 KiB and its block size (or maxChunkBytes). */
  private sizerFor(blockSizeBytes: number): ChunkSizer {
    if (this.fixedSizer) return this.fixedSizer;
    const max = chunkLimitBytes(blockSizeBytes, this.opts.maxChunkBytes);
    return new ChunkSizer({ initialBytes: Math.min(INITIAL_CHUNK_SIZE_BYTES, max), maxBytes: max });
  }
}

/** The one sizer every transfer shares when the chunk size is fixed; undefined: adaptive per transfer. */
function fixedSizer(chunkBytes: number | undefined): ChunkSizer | undefined {
  if (chunkBytes === undefined) return undefined;
  return new ChunkSizer({ initialBytes: chunkBytes, minBytes: chunkBytes, maxBytes: chunkBytes, fixed: true });
}
