import type { ConflictPolicy, TransferOptions, TransferRequest, TransferSource, TransferState } from '../shared/models';

/**
 * The narrow persistence interface the engine writes through (design.md "engine persists
 * through a narrow store interface"). store/transfer-repo.ts implements it over SQLite.
 * Every method is synchronous and atomic; a thrown error (disk full, locked) is the
 * caller's to turn into a transfer error.
 */

export interface TransferRecord {
  id: number;
  accountId: number;
  bucket: string;
  /** The key the object gets (differs from requestedKey after a rename on conflict). */
  key: string;
  requestedKey: string;
  localPath: string;
  size: number;
  mtimeMs: number;
  state: TransferState;
  batch: string | null;
  blockSize: number;
  etag: string | null;
  remoteHash: string | null;
  attempts: number;
  lastError: { code: string; message: string } | null;
  warning: string | null;
  source: TransferSource;
  options: TransferOptions;
  returnBody: Record<string, unknown> | null;
  /** The object this transfer's object was copied from on the service (engine/same-bytes.ts); null when its bytes were sent. */
  copiedFrom: { bucket: string; key: string } | null;
  priority: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface BlockRecord {
  index: number;
  size: number;
  /** Bytes of the block the service has acknowledged; the offset of the next chunk. */
  nextOffset: number;
  /** ctx of the last acknowledged chunk, valid only for the chunk at nextOffset. */
  lastCtx: string | null;
  ctxTimeMs: number | null;
  /** SHA1 digests (20 bytes each) of the finished 4 MiB etag units of this block. */
  unitSha1s: Buffer;
}

export type TransferPatch = Partial<
  Pick<
    TransferRecord,
    | 'key'
    | 'size'
    | 'mtimeMs'
    | 'state'
    | 'batch'
    | 'etag'
    | 'remoteHash'
    | 'attempts'
    | 'lastError'
    | 'warning'
    | 'returnBody'
    | 'copiedFrom'
    | 'finishedAt'
  >
>;

/** An object this app stored (a done, verified transfer) that a copy on the service can come from. */
export interface StoredCopySource {
  /** The transfer that stored it (its row may have been cleared since). */
  transferId: number | null;
  bucket: string;
  key: string;
}

export interface EngineStore {
  /** Inserts queued transfers in one transaction; ids in request order. */
  insertTransfers(
    requests: readonly TransferRequest[],
    defaults: { blockSize: number; conflict: ConflictPolicy },
  ): number[];
  getTransfer(id: number): TransferRecord | undefined;
  /** Transfers in `states`, highest priority first, then oldest. */
  listTransfers(states: readonly TransferState[], limit?: number): TransferRecord[];
  /** Applies `patch`; returns the record as written (undefined when there is no such transfer). */
  updateTransfer(id: number, patch: TransferPatch): TransferRecord | undefined;
  /** Moves every transfer in `from` to `to` (used at start: a killed run left them mid-way). */
  moveStates(from: readonly TransferState[], to: TransferState): number;
  listBlocks(transferId: number): BlockRecord[];
  /** Replaces the transfer's blocks with fresh ones (nothing sent) and sets its batch, size and mtime. */
  resetBlocks(
    transferId: number,
    batch: string,
    sizeBytes: number,
    mtimeMs: number,
    blockSizes: readonly number[],
  ): void;
  /** Forgets what was sent of one block (its ctx is no longer usable). */
  resetBlock(transferId: number, index: number): void;
  /** After every chunk reply: the block's new offset, ctx and finished unit digests. */
  commitChunk(
    transferId: number,
    index: number,
    nextOffset: number,
    ctx: string,
    ctxTimeMs: number,
    unitSha1s: Buffer,
  ): void;
  deleteBlocks(transferId: number): void;
  /**
   * Whether this account stored a verified object of this size (store/stored-bytes.ts; kept
   * when finished transfers are cleared: finishTransfer records it).
   */
  storedOfSize(accountId: number, size: number): boolean;
  /** The newest verified objects this account stored with these bytes (size and etag), at most `limit` places. */
  storedWithBytes(accountId: number, size: number, etag: string, limit: number): StoredCopySource[];
  /** The object at this place is gone or holds other bytes: forgets it as a place with known bytes. */
  forgetStored(accountId: number, bucket: string, key: string): void;
  /** Applies the final patch and forgets the blocks, atomically; returns the record as written. */
  finishTransfer(id: number, patch: TransferPatch): TransferRecord | undefined;
  /**
   * Runs `fn` with every write it makes in one transaction (one commit for many files'
   * state changes); reads inside see those writes. A nested call joins the outer one. When
   * `fn` throws, its writes are rolled back and the error is rethrown.
   */
  batch<T>(fn: () => T): T;
  logEvent(e: {
    level: 'info' | 'warn' | 'error';
    kind: string;
    transferId?: number;
    message: string;
    data?: unknown;
  }): void;
}
