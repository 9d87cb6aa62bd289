import { createHash } from 'node:crypto';
import { isServiceError, type ServiceError } from '../protocol/errors';
import { etagFromUnitDigests } from '../protocol/etag';
import type { BlockState } from './block-state';
import { MAX_RENAMES, renamedKey } from './conflict';
import { TransferFailure, sleep } from './errors';
import type { ConflictPolicy } from '../shared/models';
import type { TransferRecord } from './ports';
import { failureFrom, retryAbout, type CallName, type Decision } from './retry';
import type { MkfileResult } from '../protocol/types';
import type { IssuedToken } from './tokens';
import type { LogLine, Stops, UploadDeps, UploadHooks, UploadOutcome } from './upload-deps';
import { tokenHasCallback, type UploadToken } from './upload-token';

/**
 * What the completing request needs of its file upload (file-upload.ts builds it): mkfile
 * after the blocks, or the whole small file's form upload. Both answer alike (hash, key or
 * the callback's reply) and get the same conflict policy, 579 and retry handling.
 */
export interface CompleteStep {
  deps: UploadDeps;
  rec: TransferRecord;
  tokens: UploadToken;
  /** The etag of the bytes read (per 4 MiB unit SHA1, any block size). */
  etag: string;
  /** Which call `send` makes, for the retry decision. */
  call: 'mkfile' | 'form';
  /** Sends the completing request with this token to `tokens.currentKey`. */
  send(token: string, callback: boolean, stops: Stops): Promise<MkfileResult<string | null>>;
  decide(e: ServiceError, call: CallName, tok: IssuedToken | undefined, attempt: number): Decision;
  retried: UploadHooks['retried'];
  log(line: LogLine): void;
  /** Sets every block back and uploads them all again (412, or a refused block list); a form upload just sends again. */
  reuploadBlocks(stops: Stops): Promise<void>;
}

/**
 * mkfile with the conflict policy, 412 handling and the hash check: resolves with the
 * outcome (done, or skipped by the conflict policy); rejects with a TransferFailure, or
 * with `stops.soft`'s reason when stopped.
 */
export async function complete(c: CompleteStep, stops: Stops): Promise<UploadOutcome> {
  const signal = stops.soft;
  const etag = c.etag;
  const counts = { attempt: 0, renames: 0 };
  for (;;) {
    const at: { call: CallName; tok: IssuedToken | undefined } = { call: 'token', tok: undefined };
    try {
      return await mkfileOnce(c, stops, etag, at);
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (!isServiceError(e)) throw e;
      counts.attempt++;
      const outcome = await afterMkfileError(c, stops, e, etag, { ...at, counts });
      if (outcome) return outcome;
    }
  }
}

/** The etag of the bytes read while uploading the blocks (per 4 MiB unit SHA1, any block size). */
export function etagOfBlocks(size: number, blocks: readonly BlockState[]): string {
  if (size === 0) return etagFromUnitDigests([createHash('sha1').digest()]);
  return etagFromUnitDigests(blocks.flatMap((b) => b.unitDigests()));
}

/** One mkfile (or form upload) call and the hash check of its reply; `at` records how far it got. */
async function mkfileOnce(
  c: CompleteStep,
  stops: Stops,
  etag: string,
  at: { call: CallName; tok: IssuedToken | undefined },
): Promise<UploadOutcome> {
  at.tok = await c.tokens.current(stops.soft);
  at.call = c.call;
  const r = await c.send(at.tok.token, tokenHasCallback(at.tok.token), stops);
  const key = r.key ?? c.tokens.currentKey;
  c.tokens.accepted(at.tok);
  if (r.hash === null) {
    // Only with a callback: the reply is the callback's answer, stored but not comparable.
    return {
      state: 'done',
      key,
      etag,
      remoteHash: null,
      returnBody: r.body,
      warning: `stored; the reply was the callback's answer without the service's hash, so the hash could not be compared (not verified)`,
    };
  }
  if (r.hash !== etag) {
    throw new TransferFailure(
      'hash-mismatch',
      `integrity check failed: the service stored hash ${r.hash} but the file read as ${etag}; the object under "${key}" is not this file`,
    );
  }
  return { state: 'done', key, etag, remoteHash: r.hash, returnBody: r.body, warning: null };
}

/**
 * Acts on a failed mkfile as retry.ts decides. Resolves with an outcome when the upload
 * ends here (skipped, done with a warning), undefined to call mkfile again; throws the
 * failure otherwise.
 */
async function afterMkfileError(
  c: CompleteStep,
  stops: Stops,
  e: ServiceError,
  etag: string,
  at: { call: CallName; tok: IssuedToken | undefined; counts: { attempt: number; renames: number } },
): Promise<UploadOutcome | undefined> {
  const signal = stops.soft;
  const d = c.decide(e, at.call, at.tok, at.counts.attempt);
  // Only a request made again is a retry (news, an attempt counted): not a conflict policy
  // at work, a 579 accepted with a warning, or the end.
  if (!['conflict', 'done-with-warning', 'fail', 'stop'].includes(d.action))
    c.retried(`${e.message} → ${d.action}`, 'delayMs' in d ? d.delayMs : 0, retryAbout(e, d));
  switch (d.action) {
    case 'retry':
    case 'resend-chunk':
    case 'restart-block':
      await sleep('delayMs' in d ? d.delayMs : 0, signal);
      return undefined;
    case 'refresh-token':
      await c.tokens.refresh(at.tok, signal);
      return undefined;
    case 'reupload-blocks':
      await c.reuploadBlocks(stops);
      return undefined;
    case 'conflict': {
      const known = await whatIsStored(c, stops, etag);
      if (known.same) return known.same;
      return applyConflict(c, e, etag, d.policy, at.counts, known.why);
    }
    case 'done-with-warning':
      return {
        state: 'done',
        key: c.tokens.currentKey,
        etag,
        remoteHash: null,
        returnBody: null,
        warning: `stored, but the service reported: ${e.serviceMessage} (hash not returned; not uploaded again)`,
      };
    default:
      throw failureFrom(e, d);
  }
}

/**
 * After a 406, asks the service what it stores under the key (`GET /stat`, deps.stored):
 * an object whose hash is this file's etag is this file (a killed run's mkfile that landed
 * before its record, the same bytes uploaded from another database, or by someone else),
 * and the upload ends done and verified here. Otherwise `why` says what the conflict policy
 * is applied to: other content, or why it could not be checked (which is logged).
 */
async function whatIsStored(
  c: CompleteStep,
  stops: Stops,
  etag: string,
): Promise<{ same?: UploadOutcome; why: { text: string; log?: LogLine } }> {
  const key = c.tokens.currentKey;
  const bucket = c.rec.bucket;
  let why: string;
  if (!c.deps.stored) why = 'this account has no way to ask the service (no management URL)';
  else {
    try {
      const info = await c.deps.stored(bucket, key, stops.soft);
      if (info && info.hash === etag) {
        const note = `already there: "${key}" in ${bucket} holds exactly this file (hash ${etag}); not uploaded again`;
        c.log({ level: 'info', kind: 'already-stored', message: note });
        return {
          same: { state: 'done', key, etag, remoteHash: info.hash, returnBody: null, warning: note },
          why: { text: '' },
        };
      }
      if (info) return { why: { text: `it holds other content (hash ${info.hash}, this file ${etag})` } };
      why = 'the service said the key exists, but stat found nothing under it';
    } catch (err) {
      if (stops.soft.aborted) throw stops.soft.reason;
      why = (err as Error).message;
    }
  }
  const text = `whether it holds this file could not be checked: ${why}`;
  return { why: { text, log: { level: 'warn', kind: 'stat-failed', message: `"${key}" in ${bucket}: ${text}` } } };
}

/**
 * 406 (the key exists) with other content, or content that could not be checked (`why`):
 * skip ends the upload as skipped; overwrite retargets the token with overwrite; rename
 * tries `name (1).ext`, `name (2).ext`… Undefined means call mkfile again.
 */
function applyConflict(
  c: CompleteStep,
  e: ServiceError,
  etag: string,
  policy: ConflictPolicy,
  counts: { renames: number },
  why: { text: string; log?: LogLine },
): UploadOutcome | undefined {
  if (why.log) c.log(why.log);
  if (policy === 'skip') {
    const key = c.tokens.currentKey;
    return {
      state: 'skipped',
      key,
      etag,
      remoteHash: null,
      returnBody: null,
      warning: `"${key}" already exists in ${c.rec.bucket}; skipped (conflict policy skip); ${why.text}`,
    };
  }
  if (policy === 'overwrite' && !c.tokens.overwriting) {
    c.tokens.retarget(c.tokens.currentKey, true);
    return undefined;
  }
  if (policy === 'rename' && counts.renames < MAX_RENAMES) {
    counts.renames++;
    c.tokens.retarget(renamedKey(c.rec.requestedKey, counts.renames), c.tokens.overwriting);
    return undefined;
  }
  throw new TransferFailure(
    'conflict',
    `"${c.tokens.currentKey}" already exists and could not be replaced: ${e.serviceMessage}`,
  );
}
