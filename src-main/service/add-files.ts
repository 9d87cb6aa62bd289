import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { TransferControl, TransferQueue } from '../engine/api';
import type { TransferRecord } from '../engine/ports';
import type { TransferOptions, TransferRequest, TransferSource } from '../shared/models';
import { expandPaths, type SkippedPath } from './expand-paths';

export { AddFilesError, type AddFilesErrorCode, type SkippedPath, type SkipCode } from './expand-paths';

/**
 * The use case behind `blocklift upload` and the app's "add files": named files and folders
 * become transfers in the queue. For each file it decides, against the newest transfer of
 * the same file to the same place by this database (following a rename on conflict to the
 * key the object got):
 *   - unfinished (queued … completing, paused, failed) → continue it from its committed
 *     offsets (a failed or paused one is put back in the queue);
 *   - done, same size and mtime, and the options do not say overwrite → already uploaded,
 *     nothing sent; with overwrite the object is written again (the person asked for it:
 *     the object may have been deleted or renamed on the service since);
 *   - done but the file changed since → a new version of a file this client wrote: a fresh
 *     transfer to the key it got, overwriting it whatever the conflict policy (skip and
 *     rename are for keys someone else wrote);
 *   - otherwise → a fresh transfer with the given options.
 * Input and output are plain data; refusals throw AddFilesError (a `code` and a message
 * saying what to do) before anything is queued.
 */

export interface AddFilesDeps {
  /** The transfer store's lookup of the newest transfer of one file to one place. */
  store: {
    findLatest(accountId: number, bucket: string, requestedKey: string, localPath: string): TransferRecord | undefined;
  };
  queue: Pick<TransferQueue, 'enqueue'> & Pick<TransferControl, 'resume'>;
}

export interface AddFilesInput {
  paths: readonly string[];
  accountId: number;
  bucket: string;
  /** Put before every key ('' when absent). */
  prefix?: string;
  /** The key of the single file named; refused with folders or several files. */
  key?: string;
  source: TransferSource;
  /** Bytes, a multiple of 4 MiB; the queue's default when absent. */
  blockSize?: number;
  options: TransferOptions;
  /**
   * Write files already uploaded (done, unchanged) again. Default: the options' conflict
   * policy is 'overwrite' (the CLI's --overwrite). The app passes it only when the person
   * asked for it, so a default policy of 'overwrite' does not re-send unchanged files.
   */
  resendUploaded?: boolean;
}

/** A file whose newest transfer is done with the same size and mtime: not sent again. */
export interface AlreadyUploaded {
  id: number;
  path: string;
  key: string;
  size: number;
  etag: string | null;
}

export interface AddFilesResult {
  /** Transfers to watch until they settle: continued ones and new ones, in file order. */
  queued: number[];
  alreadyUploaded: AlreadyUploaded[];
  /** Paths that were left out, each with why. */
  skipped: SkippedPath[];
  /** Bytes of the queued files as listed (the whole upload's size, before any starts). */
  bytesQueued: number;
}

/**
 * Files looked up, and transfers queued, between two turns of the event loop: each file
 * costs a query or two and each queued transfer an insert and a read for its change event,
 * so 10,000 files in one go held the app's loop for a third of a second (the long load's
 * profile). In slices, a click or a progress batch waits for one slice at most; a crash in
 * between leaves the slices before it queued, and adding the same files again continues them.
 * 500 a slice still held it 100–300 ms on a machine whose cores were taken (issue 20 point 4).
 */
export const ADD_SLICE_FILES = 100;

const UNFINISHED = new Set(['queued', 'hashing', 'uploading', 'paused', 'completing', 'failed']);

type Store = AddFilesDeps['store'];

/** The newest transfer of `f` to `key`; after a rename on conflict, the newest one to the renamed key. */
function latest(store: Store, input: AddFilesInput, key: string, localPath: string): TransferRecord | undefined {
  const prev = store.findLatest(input.accountId, input.bucket, key, localPath);
  if (!prev || prev.state !== 'done' || prev.key === key) return prev;
  const newer = store.findLatest(input.accountId, input.bucket, prev.key, localPath);
  return newer && newer.id > prev.id ? newer : prev;
}

export async function addFiles(deps: AddFilesDeps, input: AddFilesInput): Promise<AddFilesResult> {
  const skipped: SkippedPath[] = [];
  const files = await expandPaths(input.paths, input.prefix ?? '', input.key, skipped);
  const queued: Array<number | TransferRequest> = [];
  const alreadyUploaded: AlreadyUploaded[] = [];
  const overwrite = input.resendUploaded ?? input.options.conflict === 'overwrite';
  const request = (key: string, localPath: string, size: number, options: TransferOptions): TransferRequest => ({
    accountId: input.accountId,
    bucket: input.bucket,
    key,
    localPath,
    size,
    source: input.source,
    ...(input.blockSize !== undefined ? { blockSize: input.blockSize } : {}),
    options,
  });
  let bytesQueued = 0;
  let n = 0;
  for (const f of files) {
    if (++n % ADD_SLICE_FILES === 0) await yieldToLoop();
    const prev = latest(deps.store, input, f.key, f.localPath);
    const unchanged = prev !== undefined && f.size === prev.size && f.mtimeMs === prev.mtimeMs;
    if (prev && UNFINISHED.has(prev.state)) {
      if (prev.state === 'failed' || prev.state === 'paused') deps.queue.resume(prev.id);
      queued.push(prev.id);
      bytesQueued += f.size;
    } else if (prev?.state === 'done' && unchanged && !overwrite) {
      alreadyUploaded.push({ id: prev.id, path: f.localPath, key: prev.key, size: prev.size, etag: prev.etag });
    } else if (prev?.state === 'done' && !unchanged) {
      queued.push(request(prev.key, f.localPath, f.size, { ...input.options, conflict: 'overwrite' }));
      bytesQueued += f.size;
    } else {
      queued.push(request(f.key, f.localPath, f.size, input.options));
      bytesQueued += f.size;
    }
  }
  const fresh = queued.filter((q): q is TransferRequest => typeof q !== 'number');
  const ids: number[] = [];
  for (let i = 0; i < fresh.length; i += ADD_SLICE_FILES) {
    if (i > 0) await yieldToLoop();
    ids.push(...deps.queue.enqueue(fresh.slice(i, i + ADD_SLICE_FILES)));
  }
  let next = 0;
  return {
    queued: queued.map((q) => (typeof q === 'number' ? q : ids[next++]!)),
    alreadyUploaded,
    skipped,
    bytesQueued,
  };
}
