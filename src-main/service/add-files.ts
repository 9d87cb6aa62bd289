import type { TransferControl, TransferQueue } from '../engine/api';
import type { TransferRecord } from '../engine/ports';
import type { TransferOptions, TransferRequest, TransferSource } from '../shared/models';
import { expandPaths, type SkippedPath } from './expand-paths';

export { AddFilesError, type AddFilesErrorCode, type SkippedPath, type SkipCode } from './expand-paths';

/**
 * The use case behind `blocklift upload` and the app's "add files": named files and folders
 * become transfers in the queue. For each file it decides, against the newest transfer of
 * the same file to the same place:
 *   - unfinished (queued … completing, paused, failed) → continue it from its committed
 *     offsets (a failed or paused one is put back in the queue);
 *   - done, same size and mtime → already uploaded, nothing sent;
 *   - otherwise → a fresh transfer.
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
  /** Paths inside folders that were left out, each with why. */
  skipped: SkippedPath[];
}

const UNFINISHED = new Set(['queued', 'hashing', 'uploading', 'paused', 'completing', 'failed']);

export async function addFiles(deps: AddFilesDeps, input: AddFilesInput): Promise<AddFilesResult> {
  const skipped: SkippedPath[] = [];
  const files = await expandPaths(input.paths, input.prefix ?? '', input.key, skipped);
  const queued: Array<number | TransferRequest> = [];
  const alreadyUploaded: AlreadyUploaded[] = [];
  for (const f of files) {
    const prev = deps.store.findLatest(input.accountId, input.bucket, f.key, f.localPath);
    if (prev && UNFINISHED.has(prev.state)) {
      if (prev.state === 'failed' || prev.state === 'paused') deps.queue.resume(prev.id);
      queued.push(prev.id);
    } else if (prev && prev.state === 'done' && f.size === prev.size && f.mtimeMs === prev.mtimeMs) {
      alreadyUploaded.push({ id: prev.id, path: f.localPath, key: prev.key, size: prev.size, etag: prev.etag });
    } else {
      queued.push({
        accountId: input.accountId,
        bucket: input.bucket,
        key: f.key,
        localPath: f.localPath,
        source: input.source,
        ...(input.blockSize !== undefined ? { blockSize: input.blockSize } : {}),
        options: input.options,
      });
    }
  }
  const fresh = queued.filter((q): q is TransferRequest => typeof q !== 'number');
  const ids = deps.queue.enqueue(fresh);
  let next = 0;
  return { queued: queued.map((q) => (typeof q === 'number' ? q : ids[next++]!)), alreadyUploaded, skipped };
}
