import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Base64Error, urlsafeB64DecodeText } from '../protocol/base64';
import type { BlockRecord, RemovedBlocks } from './block-store';
import type { ChunkDeps } from './chunk-routes';
import { batchTag, CtxError } from './ctx';
import { HttpError, readBody, sendJson } from './http-util';
import { mergeBlocks, type MergeLog } from './merge';
import type { SqliteObjectStore } from './object-store';
import { decodeKey, headerValue, pathInt, uploadBasics } from './upload-common';
import {
  checkOverwrite,
  checkSizeLimit,
  resolveUploadTarget,
  submitPersistentOps,
  uploadReply,
  type SubmitPersistentOps,
} from './upload-policy';

export const BLOCK_UNIT_BYTES = 4 * 1024 * 1024;
const MAX_CTX_LIST_BYTES = 16 * 1024 * 1024;

export interface MkfileDeps extends ChunkDeps {
  store: SqliteObjectStore;
  merges: MergeLog;
  submitPersistentOps?: SubmitPersistentOps;
}

interface PathParams {
  key?: string;
  fname?: string;
  mimeType?: string;
  vars: Record<string, string>;
}

/** `/key/<b64>`, `/x:<name>/<b64>` (repeatable), and the SDKs' `/fname/<b64>`, `/mimeType/<b64>`. */
function parsePathPairs(rest: string | undefined): PathParams {
  const out: PathParams = { vars: {} };
  if (!rest) return out;
  const segs = rest.split('/');
  if (segs.length % 2 !== 0) throw new HttpError(400, `mkfile path has a name without a value: /${rest.slice(0, 200)}`);
  for (let i = 0; i < segs.length; i += 2) {
    const name = segs[i]!;
    const raw = segs[i + 1]!;
    if (name === 'key') {
      out.key = decodeKey(raw, 'mkfile path /key/');
      continue;
    }
    let value: string;
    try {
      value = urlsafeB64DecodeText(raw);
    } catch (e) {
      if (e instanceof Base64Error)
        throw new HttpError(400, `mkfile path /${name}/: the value must be URL-safe Base64 (${e.message})`);
      throw e;
    }
    if (/^x:[A-Za-z0-9_-]{1,100}$/.test(name)) out.vars[name] = value;
    else if (name === 'fname') out.fname = value;
    else if (name === 'mimeType') out.mimeType = value;
    else
      throw new HttpError(
        400,
        `mkfile path has an unknown parameter "${name.slice(0, 100)}" (custom variables must begin with x:)`,
      );
  }
  return out;
}

/** Resolves the ctx list of the body to the blocks it names, checking everything (401 / 412 / 400). */
function resolveBlocks(deps: MkfileDeps, body: string, batch: string, fileSize: number): BlockRecord[] {
  if (body === '') {
    if (fileSize === 0) return [];
    throw new HttpError(412, `no blocks listed for a file of ${fileSize} bytes: upload its blocks first`);
  }
  const ctxs = body.split(',');
  const tag = batchTag(batch);
  const blocks: BlockRecord[] = [];
  ctxs.forEach((ctx, i) => {
    if (ctx.trim() === '')
      throw new HttpError(400, `ctx list item ${i} is empty (the list is ctx,ctx,… with no trailing comma)`);
    let claims;
    try {
      claims = deps.signer.verify(ctx.trim());
    } catch (e) {
      if (e instanceof CtxError) throw new HttpError(401, `invalid ctx at position ${i}: ${e.message}`);
      throw e;
    }
    if (!claims.batchTag.equals(tag))
      throw new HttpError(401, `invalid ctx at position ${i}: it belongs to another UploadBatch`);
    if (claims.blockOrder > i)
      throw new HttpError(
        412,
        `block ${i} is missing from the ctx list (position ${i} has block ${claims.blockOrder})`,
      );
    if (claims.blockOrder < i)
      throw new HttpError(400, `ctx list out of order: block ${claims.blockOrder} appears at position ${i}`);
    const block = deps.blocks.get(claims.blockId);
    if (!block)
      throw new HttpError(412, `block ${i} is missing: never uploaded, already merged, or purged; upload it again`);
    if (claims.offset !== block.received)
      throw new HttpError(
        401,
        `invalid ctx for block ${i}: not the block's last ctx (the block is at offset ${block.received})`,
      );
    if (block.received < block.blockSize)
      throw new HttpError(412, `block ${i} is incomplete: ${block.received} of ${block.blockSize} bytes uploaded`);
    blocks.push(block);
  });
  blocks.forEach((b, i) => {
    if (i < blocks.length - 1 && b.blockSize % BLOCK_UNIT_BYTES !== 0) {
      throw new HttpError(
        400,
        `block ${i} has ${b.blockSize} bytes: every block but the last must be a multiple of 4 MiB`,
      );
    }
  });
  const total = blocks.reduce((s, b) => s + b.blockSize, 0);
  if (total < fileSize)
    throw new HttpError(412, `the blocks hold ${total} bytes but fileSize is ${fileSize}: blocks are missing`);
  if (total > fileSize)
    throw new HttpError(400, `fileSize ${fileSize} is smaller than the ${total} bytes of the listed blocks`);
  return blocks;
}

/** `POST /mkfile/<fileSize>[/key/<b64>][/x:<name>/<b64>…]`: merges the blocks into an object. */
export async function handleMkfile(
  deps: MkfileDeps,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
): Promise<void> {
  const { grant, batch, headerKey } = uploadBasics(req, deps, 'text/plain');
  const fileSize = pathInt(params.fileSize, 'fileSize');
  const pathParams = parsePathPairs(params['*']);
  const target = resolveUploadTarget(
    grant,
    {
      key: headerKey ?? pathParams.key,
      mimeType: headerValue(req, 'mimetype') ?? pathParams.mimeType,
      deadline: headerValue(req, 'deadline'),
      keyWhere: 'the Key header or the path /key/<b64>',
    },
    deps.submitPersistentOps,
  );
  const key = target.key;
  checkSizeLimit(grant, fileSize);

  const body = (await readBody(req, { limit: MAX_CTX_LIST_BYTES })).toString('utf8');
  const ctxDigest = createHash('sha256').update(body).digest('hex');
  const previous = deps.merges.last(batch, ctxDigest);
  const made = previous && previous.bucket === grant.bucket && previous.key === key ? previous : undefined;
  const object = made && deps.objects.stat(grant.bucket, key);
  if (made && object?.hash === made.hash) {
    // The object this call made is still there: the reply it got, or (never made: a crash,
    // a failed callback) the reply made now.
    if (made.reply !== '') return sendJson(res, 200, JSON.parse(made.reply));
    const reply = await uploadReply(deps, req, grant, object, {
      vars: pathParams.vars,
      fname: pathParams.fname,
      persistentId: made.persistentId ?? undefined,
    });
    deps.merges.setReply(batch, ctxDigest, JSON.stringify(reply));
    return sendJson(res, 200, reply);
  }
  const blocks = resolveBlocks(deps, body, batch, fileSize);
  checkOverwrite(deps.objects, grant, key);
  const locked = blocks.filter((b) => deps.blocks.tryLock(b.id));
  try {
    if (locked.length !== blocks.length)
      throw new HttpError(409, 'another request is working on these blocks (a second mkfile of the same upload?)');
    const tmp = deps.objects.tmpPath();
    let stored;
    let persistentId: string | undefined;
    let removed: RemovedBlocks | undefined;
    try {
      const { size, hash } = await mergeBlocks(blocks, deps.blocks, tmp);
      const meta = { mimeType: target.mimeType, deadlineDays: target.deadlineDays };
      // One transaction: the object, its Fmgr task, the blocks' rows gone and the merge
      // recorded (its reply still to come). A crash before it leaves the blocks (a retry
      // merges again), after it the object and its merge (a retry gets the reply).
      stored = deps.store.putHashedFile(grant.bucket, key, tmp, size, hash, meta, (obj) => {
        persistentId = submitPersistentOps(deps, grant, target);
        removed = deps.blocks.removeRows(blocks.map((b) => b.id));
        deps.merges.record({ batch, ctxDigest, bucket: obj.bucket, key: obj.key, hash, reply: '', persistentId });
      });
    } finally {
      rmSync(tmp, { force: true });
    }
    if (removed) deps.blocks.removeFiles(removed);
    const reply = await uploadReply(deps, req, grant, stored, {
      vars: pathParams.vars,
      fname: pathParams.fname,
      persistentId,
    });
    deps.merges.setReply(batch, ctxDigest, JSON.stringify(reply));
    sendJson(res, 200, reply);
  } finally {
    for (const b of locked) deps.blocks.unlock(b.id);
  }
}
