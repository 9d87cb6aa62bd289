import type { UploadClient } from '../protocol/client';
import type { BufferPool } from './buffers';
import type { BandwidthLimiter } from './limiter';
import type { ChunkSizer } from './plan';
import type { EngineStore } from './ports';
import type { BackoffPolicy } from './retry';
import type { Scheduler } from './scheduler';
import type { SmallFileReader } from './small-reader';
import type { TokenProvider } from './tokens';
import type { FmgrAccess, StoredObjectLookup } from './upload-resources';

/** What one file upload uses; owned by the engine, shared by all its transfers. */
export interface UploadDeps {
  store: EngineStore;
  client: UploadClient;
  tokens: TokenProvider;
  /** What the service stores under a key (AccountAccess.stored); undefined: the account cannot ask. */
  stored: StoredObjectLookup | undefined;
  /** Fmgr submission and status (AccountAccess.fmgr); undefined: no copy on the service, every file is uploaded. */
  fmgr: FmgrAccess | undefined;
  /** Files of at least this many bytes whose bytes the account already stored are copied on the service (same-bytes.ts); Infinity: never. */
  copyMinBytes: number;
  scheduler: Scheduler;
  limiter: BandwidthLimiter;
  /** The chunk sizer of a transfer with this block size (adaptive up to it, or the engine's fixed one). */
  sizerFor(blockSizeBytes: number): ChunkSizer;
  /** Read buffers, taken per chunk while its bytes are in flight. */
  buffers: BufferPool;
  backoff: BackoffPolicy;
  /** Files of at most this many bytes go through form upload (one request, no blocks, not resumable). */
  formUploadMaxBytes: number;
  /** Reads small files (form uploads) whole off the main thread (small-reader.ts). */
  reader: SmallFileReader;
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
  /** Size and mtime of the file sent, when not already stored (a form upload writes no block rows). */
  file?: { size: number; mtimeMs: number };
  key: string;
  etag: string;
  remoteHash: string | null;
  returnBody: Record<string, unknown> | null;
  warning: string | null;
  /** Set when the object was made by a copy on the service from this one (same-bytes.ts) instead of an upload. */
  copiedFrom?: { bucket: string; key: string };
}

/** What a retry is, as data: the retry policy's action ('retry' is a wait with backoff) and the reply's request id. */
export interface RetryAbout {
  action: string;
  requestId: string | null;
}

/** A line of the engine's event log about this transfer. */
export interface LogLine {
  level: 'info' | 'warn';
  kind: string;
  message: string;
}

export interface UploadHooks {
  /** The transfer moved to another running phase. */
  phase(state: 'uploading' | 'completing'): void;
  /** Bytes acknowledged so far changed (after each chunk, or set back by a restart). */
  progress(bytesDone: number, totalBytes: number): void;
  /**
   * A retry happened: the engine counts attempts, logs, and tells listeners when the next
   * attempt is. `about`: what listeners branch on (the decision's action, the reply's request id).
   */
  retried(reason: string, delayMs: number, about: RetryAbout): void;
  /** Something worth a line in the event log that is neither a retry nor the end. */
  log(line: LogLine): void;
}

/**
 * How a running upload is stopped. `soft` (pause, shutdown) stops between chunks: a chunk
 * already sent is awaited and committed, so its block's ctx chain stays usable on resume.
 * `hard` (cancel) also aborts requests in flight. Aborting `hard` must abort `soft` too.
 */
export interface Stops {
  soft: AbortSignal;
  hard: AbortSignal;
}
