import type { IncomingMessage } from 'node:http';
import { FopsSyntaxError, parseFop } from '../protocol/fops';
import type { ObjectStore, StoredObject } from './contracts';
import { HttpError } from './http-util';
import { keyProblem } from './object-store';
import { mkfileReply, postCallback, renderCallbackBody, returnBodyProblem, type UploadVars } from './return-body';
import type { UploadGrant } from './upload-auth';

/**
 * The policy side of finishing an upload, shared by mkfile (mkfile.ts) and the form upload
 * (form-upload.ts): where the object goes and with what metadata, whether it may be
 * stored (fsizeLimit, overwrite), and the reply (returnBody, callback, persistentOps).
 */

const MAX_MIME_TYPE_LENGTH = 255;

/** Hands persistentOps to the Fmgr service; returns the persistentId. */
export type SubmitPersistentOps = (
  opName: string,
  fops: string,
  opts: { notifyURL?: string; separate?: boolean },
) => string;

interface PersistentPlan {
  opName: string;
  fops: string;
}

/** Where an upload goes and with what metadata, all checked. */
export interface UploadTarget {
  key: string;
  mimeType?: string;
  deadlineDays?: number;
  persistent?: PersistentPlan;
}

/** What the request gave besides the token: a key (scope wins over it), MimeType and Deadline text. */
export interface GivenTarget {
  key?: string;
  mimeType?: string;
  deadline?: string;
  /** How the request names things, for messages: e.g. "the Key header or the path /key/<b64>". */
  keyWhere: string;
}

/** Resolves and checks key, MimeType, Deadline, returnBody and persistentOps (HttpError 400). */
export function resolveUploadTarget(
  grant: UploadGrant,
  given: GivenTarget,
  submitPersistentOps: SubmitPersistentOps | undefined,
): UploadTarget {
  const key = grant.scopeKey ?? given.key;
  if (key === undefined)
    throw new HttpError(400, `no key: give it in the policy scope (bucket:key) or ${given.keyWhere}`);
  const badKey = keyProblem(key);
  if (badKey) throw new HttpError(400, `invalid key: ${badKey}`);
  let deadlineDays: number | undefined;
  if (given.deadline !== undefined) {
    if (!/^\d{1,6}$/.test(given.deadline.trim()))
      throw new HttpError(
        400,
        `Deadline must be a whole number of days, 0 or more, not "${given.deadline.slice(0, 50)}"`,
      );
    deadlineDays = Number(given.deadline.trim());
  }
  const mimeType = given.mimeType;
  if (mimeType !== undefined && (mimeType.length > MAX_MIME_TYPE_LENGTH || !/^[\x20-\x7e]*$/.test(mimeType)))
    throw new HttpError(400, 'MimeType must be printable ASCII of at most 255 characters');
  const rbProblem = grant.policy.returnBody ? returnBodyProblem(grant.policy.returnBody) : undefined;
  if (rbProblem) throw new HttpError(400, `invalid upload policy: ${rbProblem}`);
  const persistent = planPersistentOps(grant.policy.persistentOps);
  if (persistent && !submitPersistentOps)
    throw new HttpError(400, 'persistentOps are not available in this emulator (no Fmgr service)');
  return { key, mimeType, deadlineDays, persistent };
}

/** 413 when `size` is over the policy's fsizeLimit. */
export function checkSizeLimit(grant: UploadGrant, size: number): void {
  if (grant.fsizeLimit > 0 && size > grant.fsizeLimit)
    throw new HttpError(
      413,
      `file of ${size} bytes is larger than the policy's fsizeLimit of ${grant.fsizeLimit} bytes`,
    );
}

/** 406 when the key exists and the policy does not allow overwrite. */
export function checkOverwrite(objects: ObjectStore, grant: UploadGrant, key: string): void {
  if (!grant.overwrite && objects.stat(grant.bucket, key)) {
    throw new HttpError(
      406,
      `key "${key}" already exists in bucket "${grant.bucket}" and the policy does not allow overwrite (overwrite: 1)`,
    );
  }
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

/** What answering a stored upload needs. */
export interface ReplyDeps {
  config: { accessKey: string; secretKey: string };
  submitPersistentOps?: SubmitPersistentOps;
}

/** After the object is stored: hands the policy's persistentOps to Fmgr; the persistentId, if any. */
export function submitPersistentOps(deps: ReplyDeps, grant: UploadGrant, target: UploadTarget): string | undefined {
  if (!target.persistent) return undefined;
  return deps.submitPersistentOps!(target.persistent.opName, target.persistent.fops, {
    notifyURL: grant.policy.persistentNotifyUrl || undefined,
    separate: String(grant.policy.separate ?? 0) === '1',
  });
}

/**
 * The reply to a stored upload: returnBody rendered with the upload's variables, or the
 * callback's JSON reply (HttpError 579 when the callback fails; the object stays stored).
 */
export async function uploadReply(
  deps: ReplyDeps,
  req: IncomingMessage,
  grant: UploadGrant,
  stored: StoredObject,
  given: { vars: UploadVars; fname?: string; persistentId?: string },
): Promise<unknown> {
  const vars: UploadVars = {
    ...given.vars,
    bucket: stored.bucket,
    key: stored.key,
    fname: given.fname ?? stored.key.slice(stored.key.lastIndexOf('/') + 1),
    fsize: String(stored.size),
    hash: stored.hash,
    etag: stored.hash,
    mimeType: stored.mimeType,
    ip: (req.socket as IncomingMessage['socket'] | null)?.remoteAddress ?? '',
    persistentId: given.persistentId ?? '',
  };
  if (!grant.policy.callbackUrl)
    return mkfileReply(grant.policy.returnBody, vars, stored.key, stored.hash, given.persistentId);
  return postCallback(
    grant.policy.callbackUrl,
    renderCallbackBody(grant.policy.callbackBody, vars),
    deps.config.accessKey,
    deps.config.secretKey,
  );
}
