import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Base64Error, urlsafeB64DecodeText } from '../protocol/base64';
import { FopsSyntaxError, parseFop } from '../protocol/fops';
import type { BlockRecord } from './block-store';
import type { ChunkDeps } from './chunk-routes';
import { batchTag, CtxError } from './ctx';
import { HttpError, readBody, sendJson } from './http-util';
import { mergeBlocks, type MergeLog } from './merge';
import { keyProblem, type SqliteObjectStore } from './object-store';
import { mkfileReply, postCallback, renderCallbackBody, returnBodyProblem, type UploadVars } from './return-body';
import { decodeKey, headerValue, pathInt, uploadBasics } from './upload-common';

export const BLOCK_UNIT_BYTES = 4 * 1024 * 1024;
const MAX_CTX_LIST_BYTES = 16 * 1024 * 1024;
const MAX_MIME_TYPE_LENGTH = 255;

/** Hands persistentOps to the Fmgr service; returns the persistentId. */
export type SubmitPersistentOps = (
  opName: string,
  fops: string,
  opts: { notifyURL?: string; separate?: boolean },
) => string;

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

interface PersistentPlan {
  opName: string;
  fops: string;
}

/** persistentOps entries are `op/pairs;op/pairs…` (fopCommand); one submission takes one op kind. */
function planPersistentOps(persistentOps: string | undefined): PersistentPlan | undefined {
  if (!persistentOps) return undefined;
  let opName: string | undefined;
  const entries: string[] = [];
  for (const entry of persistentOps.split(';')) {
    const slash = entry.indexOf('/');
    const name = slash < 0 ? entry : entry.slice(0, slash);
    const pairs = slash < 0 ? '' : entry.slice(slash + 1);
    try {
      parseFop(name, pairs);
    } catch (e) {
      if (e instanceof FopsSyntaxError)
        throw new HttpError(400, `invalid upload policy: persistentOps entry "${entry.slice(0, 100)}": ${e.message}`);
      throw e;
    }
    if (opName !== undefined && name !== opName)
      throw new HttpError(
        400,
        'invalid upload policy: persistentOps entries must all be the same operation (one Fmgr submission)',
      );
    opName = name;
    entries.push(pairs);
  }
  return { opName: opName!, fops: entries.join(';') };
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
  const key = grant.scopeKey ?? headerKey ?? pathParams.key;
  if (key === undefined)
    throw new HttpError(400, 'no key: give it in the policy scope (bucket:key), the Key header or the path /key/<b64>');
  const badKey = keyProblem(key);
  if (badKey) throw new HttpError(400, `invalid key: ${badKey}`);
  const deadlineHeader = headerValue(req, 'deadline');
  let deadlineDays: number | undefined;
  if (deadlineHeader !== undefined) {
    if (!/^\d{1,6}$/.test(deadlineHeader.trim()))
      throw new HttpError(
        400,
        `Deadline must be a whole number of days, 0 or more, not "${deadlineHeader.slice(0, 50)}"`,
      );
    deadlineDays = Number(deadlineHeader.trim());
  }
  const mimeType = headerValue(req, 'mimetype') ?? pathParams.mimeType;
  if (mimeType !== undefined && (mimeType.length > MAX_MIME_TYPE_LENGTH || !/^[\x20-\x7e]*$/.test(mimeType)))
    throw new HttpError(400, 'MimeType must be printable ASCII of at most 255 characters');
  if (grant.fsizeLimit > 0 && fileSize > grant.fsizeLimit)
    throw new HttpError(
      413,
      `file of ${fileSize} bytes is larger than the policy's fsizeLimit of ${grant.fsizeLimit} bytes`,
    );
  const rbProblem = grant.policy.returnBody ? returnBodyProblem(grant.policy.returnBody) : undefined;
  if (rbProblem) throw new HttpError(400, `invalid upload policy: ${rbProblem}`);
  const persistent = planPersistentOps(grant.policy.persistentOps);
  if (persistent && !deps.submitPersistentOps)
    throw new HttpError(400, 'persistentOps are not available in this emulator (no Fmgr service)');

  const body = (await readBody(req, { limit: MAX_CTX_LIST_BYTES })).toString('utf8');
  const ctxDigest = createHash('sha256').update(body).digest('hex');
  const previous = deps.merges.last(batch, ctxDigest);
  if (
    previous &&
    previous.bucket === grant.bucket &&
    previous.key === key &&
    deps.objects.stat(grant.bucket, key)?.hash === previous.hash
  ) {
    sendJson(res, 200, JSON.parse(previous.reply));
    return;
  }
  const blocks = resolveBlocks(deps, body, batch, fileSize);
  if (!grant.overwrite && deps.objects.stat(grant.bucket, key)) {
    throw new HttpError(
      406,
      `key "${key}" already exists in bucket "${grant.bucket}" and the policy does not allow overwrite (overwrite: 1)`,
    );
  }
  const locked = blocks.filter((b) => deps.blocks.tryLock(b.id));
  try {
    if (locked.length !== blocks.length)
      throw new HttpError(409, 'another request is working on these blocks (a second mkfile of the same upload?)');
    const tmp = deps.objects.tmpPath();
    let stored;
    try {
      const { size, hash } = await mergeBlocks(blocks, deps.blocks, tmp);
      stored = deps.store.putHashedFile(grant.bucket, key, tmp, size, hash, { mimeType, deadlineDays });
    } finally {
      rmSync(tmp, { force: true });
    }
    const persistentId = persistent
      ? deps.submitPersistentOps!(persistent.opName, persistent.fops, {
          notifyURL: grant.policy.persistentNotifyUrl || undefined,
          separate: String(grant.policy.separate ?? 0) === '1',
        })
      : undefined;
    deps.blocks.remove(blocks.map((b) => b.id));
    const vars: UploadVars = {
      ...pathParams.vars,
      bucket: stored.bucket,
      key: stored.key,
      fname: pathParams.fname ?? stored.key.slice(stored.key.lastIndexOf('/') + 1),
      fsize: String(stored.size),
      hash: stored.hash,
      etag: stored.hash,
      mimeType: stored.mimeType,
      ip: (req.socket as IncomingMessage['socket'] | null)?.remoteAddress ?? '',
      persistentId: persistentId ?? '',
    };
    let reply: unknown = mkfileReply(grant.policy.returnBody, vars, stored.key, stored.hash, persistentId);
    if (grant.policy.callbackUrl) {
      reply = await postCallback(
        grant.policy.callbackUrl,
        renderCallbackBody(grant.policy.callbackBody, vars),
        deps.config.accessKey,
        deps.config.secretKey,
      );
    }
    deps.merges.record({
      batch,
      ctxDigest,
      bucket: stored.bucket,
      key: stored.key,
      hash: stored.hash,
      reply: JSON.stringify(reply),
    });
    sendJson(res, 200, reply);
  } finally {
    for (const b of locked) deps.blocks.unlock(b.id);
  }
}
