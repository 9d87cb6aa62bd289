import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FmgrOp } from '../protocol/fops';
import type { EmulatorContext, StoredObject } from './contracts';
import { fetchToFile, FetchError, parseFetchUrl } from './fmgr-fetch';
import { m3u8SegmentKeys, objectFromUrl } from './fmgr-urls';
import { writeZip, ZipLimitError, type ZipEntrySource } from './fmgr-zip';

/**
 * The eight Fmgr operations, run for real against the emulator's object store. Each
 * resolves with the item fields of its result, or rejects with FmgrOpError whose message
 * is the item's `error`.
 *
 * Rules the emulator applies (the interface document does not spell them out):
 * - an unknown bucket or a missing source object fails the item;
 * - fetch, copy, move and compress refuse to replace an existing destination ("file
 *   exists") unless the submission has force=1;
 * - copy/move without a key save under prefix + source key (prefix defaults to "");
 *   fetch without a key saves under prefix + the last path segment of the URL;
 * - deletePrefix writes the deleted keys, one per line, to `output` (a key in the same
 *   bucket) when given; deletem3u8 deletes the playlist and, with deletets=1 (default 0),
 *   the segments it references that exist, segments first, so a failure leaves the
 *   playlist for a retry; setdeadline applies to every key under the prefix (none is
 *   fine); compress zips the keys (repeats dropped) and saves the zip as saveas.
 */

export class FmgrOpError extends Error {
  override readonly name = 'FmgrOpError';
}

export interface FmgrOpResult {
  key: string;
  hash: string;
  fsize: number | null;
  url: string;
}

export interface FmgrOpEnv {
  ctx: EmulatorContext;
  force: boolean;
  signal: AbortSignal;
}

export async function runFmgrOp(op: FmgrOp, env: FmgrOpEnv): Promise<FmgrOpResult> {
  switch (op.op) {
    case 'fetch':
      return fetchOp(op, env);
    case 'copy':
    case 'move':
      return copyOrMove(op, env);
    case 'delete': {
      const { objects } = env.ctx;
      needBucket(env, op.bucket);
      if (!objects.delete(op.bucket, op.key)) throw new FmgrOpError(`file not found: ${op.bucket}:${op.key}`);
      return { key: op.key, hash: '', fsize: null, url: '' };
    }
    case 'deletePrefix':
      return deletePrefix(op, env);
    case 'deletem3u8':
      return deleteM3u8(op, env);
    case 'setdeadline': {
      needBucket(env, op.bucket);
      for (const o of env.ctx.objects.list(op.bucket, op.prefix ?? ''))
        env.ctx.objects.setDeadline(op.bucket, o.key, op.deadline);
      return { key: op.prefix ?? '', hash: '', fsize: null, url: '' };
    }
    case 'compress':
      return compress(op, env);
  }
}

function needBucket(env: FmgrOpEnv, bucket: string): void {
  if (!env.ctx.objects.hasBucket(bucket)) throw new FmgrOpError(`bucket not found: ${bucket}`);
}

function needFreeDestination(env: FmgrOpEnv, bucket: string, key: string): void {
  if (!env.force && env.ctx.objects.stat(bucket, key))
    throw new FmgrOpError(`file exists: ${bucket}:${key} (submit with force=1 to replace it)`);
}

function result(env: FmgrOpEnv, o: StoredObject): FmgrOpResult {
  return { key: o.key, hash: o.hash, fsize: o.size, url: env.ctx.objectUrl(o.bucket, o.key) };
}

async function fetchOp(op: Extract<FmgrOp, { op: 'fetch' }>, env: FmgrOpEnv): Promise<FmgrOpResult> {
  needBucket(env, op.bucket);
  let url: URL;
  try {
    url = parseFetchUrl(op.fetchURL);
  } catch (e) {
    throw new FmgrOpError((e as Error).message);
  }
  let key = op.key;
  if (key === undefined) {
    const base = path.posix.basename(safeDecode(url.pathname));
    if (base === '') throw new FmgrOpError('fetchURL has no file name to use as the key: give a key');
    key = (op.prefix ?? '') + base;
  }
  needFreeDestination(env, op.bucket, key);
  const tmp = env.ctx.objects.tmpPath();
  try {
    const got = await fetchToFile(url.href, tmp, { signal: env.signal });
    if (op.md5 !== undefined && got.md5 !== op.md5.toLowerCase()) {
      throw new FmgrOpError(`md5 mismatch: expected ${op.md5.toLowerCase()}, the fetched file has ${got.md5}`);
    }
    needFreeDestination(env, op.bucket, key);
    return result(env, env.ctx.objects.putFromFile(op.bucket, key, tmp, {}));
  } catch (e) {
    await rm(tmp, { force: true });
    if (e instanceof FetchError) throw new FmgrOpError(e.message);
    throw e;
  }
}

function copyOrMove(op: Extract<FmgrOp, { op: 'copy' | 'move' }>, env: FmgrOpEnv): FmgrOpResult {
  const { objects } = env.ctx;
  needBucket(env, op.srcBucket);
  needBucket(env, op.bucket);
  if (!objects.stat(op.srcBucket, op.srcKey)) throw new FmgrOpError(`file not found: ${op.srcBucket}:${op.srcKey}`);
  const dstKey = op.key ?? (op.prefix ?? '') + op.srcKey;
  if (op.srcBucket === op.bucket && op.srcKey === dstKey) {
    throw new FmgrOpError(`source and destination are the same: ${op.bucket}:${dstKey}`);
  }
  needFreeDestination(env, op.bucket, dstKey);
  const copied = objects.copy(op.srcBucket, op.srcKey, op.bucket, dstKey);
  if (op.op === 'move') objects.delete(op.srcBucket, op.srcKey);
  return result(env, copied);
}

function deletePrefix(op: Extract<FmgrOp, { op: 'deletePrefix' }>, env: FmgrOpEnv): FmgrOpResult {
  const { objects } = env.ctx;
  needBucket(env, op.bucket);
  const deleted: string[] = [];
  for (const o of objects.list(op.bucket, op.prefix)) {
    if (objects.delete(op.bucket, o.key)) deleted.push(o.key);
  }
  if (op.output === undefined) return { key: '', hash: '', fsize: null, url: '' };
  const text = deleted.map((k) => `${k}\n`).join('');
  objects.putBuffer(op.bucket, op.output, Buffer.from(text, 'utf8'), { mimeType: 'text/plain' });
  return { key: op.output, hash: '', fsize: null, url: env.ctx.objectUrl(op.bucket, op.output) };
}

async function deleteM3u8(op: Extract<FmgrOp, { op: 'deletem3u8' }>, env: FmgrOpEnv): Promise<FmgrOpResult> {
  const { objects } = env.ctx;
  needBucket(env, op.bucket);
  const file = objects.contentPath(op.bucket, op.key);
  if (file === undefined) throw new FmgrOpError(`file not found: ${op.bucket}:${op.key}`);
  if (op.deletets === 1) {
    const text = (await readFile(file)).toString('utf8');
    if (!text.trimStart().startsWith('#EXTM3U'))
      throw new FmgrOpError(`${op.key} is not an m3u8 playlist (no #EXTM3U header)`);
    for (const key of m3u8SegmentKeys(text, op.key, (u) => objectFromUrl(env.ctx, u), op.bucket)) {
      if (key !== op.key) objects.delete(op.bucket, key);
    }
  }
  objects.delete(op.bucket, op.key);
  return { key: op.key, hash: '', fsize: null, url: '' };
}

async function compress(op: Extract<FmgrOp, { op: 'compress' }>, env: FmgrOpEnv): Promise<FmgrOpResult> {
  const { objects } = env.ctx;
  needBucket(env, op.bucket);
  needBucket(env, op.saveAsBucket);
  const entries: ZipEntrySource[] = [];
  for (const key of [...new Set(op.keys)]) {
    const o = objects.stat(op.bucket, key);
    const file = objects.contentPath(op.bucket, key);
    if (!o || file === undefined) throw new FmgrOpError(`file not found: ${op.bucket}:${key}`);
    entries.push({ name: key, path: file, size: o.size, mtimeMs: o.putTime });
  }
  needFreeDestination(env, op.saveAsBucket, op.saveAsKey);
  const tmp = objects.tmpPath();
  try {
    await writeZip(tmp, entries);
    return result(env, objects.putFromFile(op.saveAsBucket, op.saveAsKey, tmp, { mimeType: 'application/zip' }));
  } catch (e) {
    await rm(tmp, { force: true });
    if (e instanceof ZipLimitError) throw new FmgrOpError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new FmgrOpError('a file changed while it was being compressed; submit again');
    throw e;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
