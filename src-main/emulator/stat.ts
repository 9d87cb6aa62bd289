import { Base64Error, decodeEntry } from '../protocol/base64';
import { checkManagementAuth } from './auth';
import type { EmulatorContext, StoredObject } from './contracts';
import { HttpError, sendJson } from './http-util';

/**
 * `GET /stat/<EncodedEntryURI>`: what is stored under a key, as the service's resource
 * management answers it and its official SDKs ask for it (Go `BucketManager.Stat`, Java
 * `OperationManager.stat`, Python `BucketManager.stat`, PHP `FileManager::stat`, Node
 * `fileStat`): a GET on the management host, `Authorization` a management token whose
 * signing string is the path, a newline and the empty body. The entry is `b64("bucket:key")`.
 *
 * 200 `{result: true, code: 200, name, fsize, hash, mimeType, putTime, expirationDate}`
 * (the fields the SDKs read; putTime in Unix ms, expirationDate an ISO date or "").
 * Errors `{code: "<status>", message}`: no or bad token 401; an entry that is not URL-safe
 * Base64 of "bucket:key" 400; unknown bucket 631; nothing under the key 404.
 */
export function mountStat(ctx: EmulatorContext): void {
  ctx.route('GET', '/stat/:entry', (req, res, params) => {
    checkManagementAuth(req, Buffer.alloc(0), ctx.config, 'string');
    const { bucket, key } = entryOf(params.entry ?? '');
    if (!ctx.objects.hasBucket(bucket)) throw new HttpError(631, `bucket "${bucket}" does not exist`);
    const o = ctx.objects.stat(bucket, key);
    if (!o) throw new HttpError(404, 'file not exist');
    sendJson(res, 200, statBody(o));
  });
}

function entryOf(raw: string): { bucket: string; key: string } {
  let e: { bucket: string; key?: string };
  try {
    e = decodeEntry(raw);
  } catch (err) {
    if (err instanceof Base64Error) throw new HttpError(400, `bad entry: ${err.message}`);
    throw err;
  }
  if (e.bucket === '' || e.key === undefined || e.key === '')
    throw new HttpError(400, 'bad entry: it must be URL-safe Base64 of "bucket:key"');
  return { bucket: e.bucket, key: e.key };
}

function statBody(o: StoredObject): Record<string, unknown> {
  return {
    result: true,
    code: 200,
    name: o.key,
    fsize: o.size,
    hash: o.hash,
    mimeType: o.mimeType,
    putTime: o.putTime,
    expirationDate: o.expiresAt === null ? '' : new Date(o.expiresAt).toISOString(),
  };
}
