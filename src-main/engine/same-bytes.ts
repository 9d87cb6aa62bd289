import { statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { FMGR_TERMINAL_TASK_CODES } from '../protocol/codes';
import { etagOfFile } from '../protocol/etag';
import type { FmgrOp } from '../shared/fmgr-ops';
import type { FmgrTaskStatus, StoredObjectInfo } from '../protocol/types';
import { MAX_RENAMES, renamedKey } from './conflict';
import { sleep } from './errors';
import type { StoredCopySource, TransferRecord } from './ports';
import type { Stops, UploadDeps, UploadHooks, UploadOutcome } from './upload-deps';

/**
 * Bytes not sent twice (issue 19). A file whose bytes (etag) this account already stored,
 * from any folder and any earlier transfer, is not uploaded again: the service copies the
 * stored object to the new key (Fmgr `copy`), the task is followed to its end, and the new
 * object's hash (`GET /stat`) must equal the file's etag before the transfer is done and
 * verified. Anything else (no such object any more, other bytes there now, the copy refused
 * or failed, a check that cannot be made) falls back to the normal upload, which keeps the
 * conflict policy and overwrite rules for the destination key as they are: the copy never
 * replaces an object unless the policy is overwrite (force=1). Under rename, a destination
 * holding other bytes sends the copy to the next key the upload's rename would try
 * (conflict.ts `renamedKey`, " (1)", " (2)"…), one holding this file ends "already there";
 * under skip a destination that exists makes the copy fail, so the upload meets the 406 and
 * its policy as before.
 *
 * What it costs a file that is not copied: nothing below `copyMinBytes`, one indexed query
 * when no verified object of the account has the file's size, and one read of the file for
 * its etag otherwise (engine/README.md "Bytes not sent twice" says why that read is worth it).
 */

/**
 * Files below this size are uploaded without looking. Decided by measurement on the emulator
 * with added latency (test/bench/same-bytes-cost.ts; its output in engine/README.md): a copy
 * costs a fixed ~0.1 s on loopback and ~0.2–0.45 s at 20–50 ms per request (stat, submit,
 * the task's polls, stat), whatever the size. From 1 MiB on, that is faster than sending the
 * bytes on an uplink below roughly 4–9 MB/s, and the bytes are saved on any link; at 256 KiB
 * the copy wins only below about 1 MB/s.
 */
export const DEFAULT_COPY_MIN_BYTES = 1024 * 1024;
/** Places tried for one file (each a stat): the newest verified objects with these bytes. */
const MAX_SOURCES = 3;
/** Delays between status queries of the copy task (then every second). */
const POLL_DELAYS_MS = [50, 100, 200, 400, 800];
/** A copy task still running after this long is left to itself and the file is uploaded. */
const FOLLOW_TIMEOUT_MS = 120_000;
/** Status queries that fail in a row before the copy is given up (the upload takes over). */
const MAX_POLL_ERRORS = 5;

export interface SameBytesStep {
  deps: UploadDeps;
  rec: TransferRecord;
  hooks: UploadHooks;
}

type Tried = UploadOutcome | 'next' | 'upload';

/**
 * Resolves with the outcome when the object was made by a copy on the service (done and
 * verified), or undefined when the file must be uploaded. Rejects only with `stops.soft`'s
 * reason when stopped.
 */
export async function copyIfStored(s: SameBytesStep, stops: Stops): Promise<UploadOutcome | undefined> {
  const { deps, rec } = s;
  if (!deps.fmgr || !deps.stored || !(deps.copyMinBytes < Infinity)) return undefined;
  const phase = { completing: false };
  try {
    // Synchronous: one syscall, where the promise API would cost every file (small ones
    // included) a thread-pool round trip (README "Small reads are synchronous").
    const before = statOrUndefined(rec.localPath);
    if (!before?.isFile() || before.size < deps.copyMinBytes) return undefined;
    if (!deps.store.storedOfSize(rec.accountId, before.size)) return undefined;
    const { etag, size } = await etagOfFile(rec.localPath, stops.soft);
    const after = await stat(rec.localPath);
    // Changing while read: the upload's own change checks deal with it.
    if (size !== before.size || after.size !== size || after.mtimeMs !== before.mtimeMs) return undefined;
    const file = { etag, size, mtimeMs: after.mtimeMs };
    const places = deps.store.storedWithBytes(rec.accountId, size, etag, MAX_SOURCES + 1);
    const isHere = (src: StoredCopySource) => src.bucket === rec.bucket && src.key === rec.key;
    // The destination itself held these bytes: what the upload's 406 would find, without sending them.
    if (places.some(isHere) && rec.options.conflict !== 'overwrite') {
      const here = await alreadyHere(s, stops, file);
      if (here) return here;
    }
    for (const src of places.filter((p) => !isHere(p)).slice(0, MAX_SOURCES)) {
      const r = await tryCopy(s, stops, src, file, phase);
      if (r === 'upload') break;
      if (r !== 'next') return r;
    }
  } catch (e) {
    if (stops.soft.aborted) throw stops.soft.reason;
    // A file that cannot be read, a store that cannot answer: the upload meets it and says so.
    s.hooks.log({ level: 'warn', kind: 'copy-skipped', message: `not copied on the service: ${(e as Error).message}` });
  }
  if (phase.completing) s.hooks.phase('uploading');
  return undefined;
}

/**
 * The transfer's own key held these bytes when this app stored them: a stat whose hash is the
 * etag ends the transfer done and verified with the note complete.ts gives after a 406 (the
 * conflict policy would not apply to the same bytes either). Anything else: undefined, and the
 * upload meets the key as before; a key found empty or with other bytes is no longer a place
 * known to hold them (forgetStored).
 */
async function alreadyHere(
  s: SameBytesStep,
  stops: Stops,
  file: { etag: string; size: number; mtimeMs: number },
): Promise<UploadOutcome | undefined> {
  const { rec } = s;
  const info = await statQuietly(s, stops, rec.key);
  if (info === undefined) return undefined;
  if (!info || info.hash !== file.etag) {
    // Known now: the key no longer holds these bytes.
    s.deps.store.forgetStored(rec.accountId, rec.bucket, rec.key);
    return undefined;
  }
  return alreadyStored(s, rec.key, info, file);
}

/** `key` holds exactly this file (its hash is the etag): done and verified, as complete.ts says it after a 406. */
function alreadyStored(
  s: SameBytesStep,
  key: string,
  info: StoredObjectInfo,
  file: { etag: string; size: number; mtimeMs: number },
): UploadOutcome {
  const note = `already there: "${key}" in ${s.rec.bucket} holds exactly this file (hash ${file.etag}); not uploaded again`;
  s.hooks.log({ level: 'info', kind: 'already-stored', message: note });
  s.hooks.progress(0, file.size);
  return {
    state: 'done',
    key,
    etag: file.etag,
    remoteHash: info.hash,
    returnBody: null,
    warning: note,
    file: { size: file.size, mtimeMs: file.mtimeMs },
  };
}

/** The file's stat, or undefined when it cannot be had (the upload meets that and says why). */
function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/**
 * One stored place: checked, copied, followed, checked again. Under the rename policy a
 * destination that holds other bytes is not replaced: the copy goes to the key the upload's
 * rename would use (`renamedKey`, conflict.ts), as many times as the upload would try.
 */
async function tryCopy(
  s: SameBytesStep,
  stops: Stops,
  src: StoredCopySource,
  file: { etag: string; size: number; mtimeMs: number },
  phase: { completing: boolean },
): Promise<Tried> {
  const { deps, rec, hooks } = s;
  const where = placeOf(src);
  const log = logTo(hooks);
  let info: StoredObjectInfo | null;
  try {
    info = await deps.stored!(src.bucket, src.key, stops.soft);
  } catch (e) {
    if (stops.soft.aborted) throw stops.soft.reason;
    log('warn', 'copy-skipped', `could not check ${where} (${(e as Error).message}); uploading the file`);
    return 'upload';
  }
  if (!info) {
    log('info', 'copy-source-gone', `${where} (same bytes, uploaded earlier) is gone from the service`);
    deps.store.forgetStored(rec.accountId, src.bucket, src.key);
    return 'next';
  }
  if (info.hash !== file.etag) {
    log('info', 'copy-source-changed', `${where} holds other bytes now (hash ${info.hash}, this file ${file.etag})`);
    deps.store.forgetStored(rec.accountId, src.bucket, src.key);
    return 'next';
  }
  if (!phase.completing) {
    hooks.phase('completing');
    // The size, and no bytes: the end sets it done without a speed sample (nothing was sent).
    hooks.progress(0, file.size);
  }
  phase.completing = true;
  for (let key = rec.key, renames = 0; ;) {
    const r = await copyTo(s, stops, src, key, file);
    if (r !== 'exists') return r;
    if (renames >= MAX_RENAMES) return 'upload';
    const taken = key;
    key = renamedKey(rec.requestedKey, ++renames);
    log('info', 'copy-renamed', `"${taken}" holds other bytes (conflict policy rename): copying to "${key}"`);
  }
}

/**
 * The copy of `src` to `key`, followed and checked: the outcome, 'upload', or 'exists' when
 * the copy failed because `key` holds other bytes and the policy is rename (the caller tries
 * the next name). `key` found holding this very file ends as "already there".
 */
async function copyTo(
  s: SameBytesStep,
  stops: Stops,
  src: StoredCopySource,
  key: string,
  file: { etag: string; size: number; mtimeMs: number },
): Promise<Tried | 'exists'> {
  const { deps, rec, hooks } = s;
  const where = placeOf(src);
  const log = logTo(hooks);
  const op: FmgrOp & { key: string } = { op: 'copy', srcBucket: src.bucket, srcKey: src.key, bucket: rec.bucket, key };
  const force = rec.options.conflict === 'overwrite' ? 1 : 0;
  let task: FmgrTaskStatus;
  try {
    task = await follow(s, op, force, stops);
  } catch (e) {
    if (stops.soft.aborted) throw stops.soft.reason;
    log(
      'warn',
      'copy-failed',
      `copy on the service from ${where} did not complete (${(e as Error).message}); uploading`,
    );
    return 'upload';
  }
  const item = task.items[0];
  if (!item || !isSuccess(item.code)) {
    const why = item?.error || item?.desc || `task code ${task.code}`;
    if (rec.options.conflict === 'rename') {
      // A copy without force fails on an existing key: what is there decides, as after the upload's 406.
      const there = await statQuietly(s, stops, key);
      if (there && there.hash === file.etag) return alreadyStored(s, key, there, file);
      if (there) return 'exists';
    }
    log('warn', 'copy-failed', `copy on the service from ${where} failed (${why}); uploading`);
    return 'upload';
  }
  let made: StoredObjectInfo | null;
  try {
    made = await deps.stored!(rec.bucket, key, stops.soft);
  } catch (e) {
    if (stops.soft.aborted) throw stops.soft.reason;
    log('warn', 'copy-unverified', `the copy from ${where} could not be checked (${(e as Error).message}); uploading`);
    return 'upload';
  }
  if (!made || made.hash !== file.etag) {
    // The source changed between its check and the copy: the object made is not this file.
    // It is ours (the copy replaces nothing without overwrite), so it goes before the upload.
    log(
      'warn',
      'copy-unverified',
      `the copy from ${where} holds ${made ? `hash ${made.hash}` : 'nothing'}, not this file (${file.etag}); uploading`,
    );
    if (made) await removeCopy(s, stops, key);
    return 'upload';
  }
  log('info', 'copied-on-service', `copied on the service from ${where} (hash ${file.etag} checked); not uploaded`);
  return {
    state: 'done',
    key,
    etag: file.etag,
    remoteHash: made.hash,
    returnBody: null,
    warning: null,
    file: { size: file.size, mtimeMs: file.mtimeMs },
    copiedFrom: { bucket: src.bucket, key: src.key },
  };
}

/** A stored place as the log names it. */
const placeOf = (src: StoredCopySource) => `"${src.key}" in ${src.bucket}`;

/** The step's log lines: a level, a kind and the text. */
const logTo = (hooks: UploadHooks) => (level: 'info' | 'warn', kind: string, text: string) =>
  hooks.log({ level, kind, message: text });

/** What the service stores under `key` of the transfer's bucket, or undefined when it cannot tell. */
async function statQuietly(s: SameBytesStep, stops: Stops, key: string): Promise<StoredObjectInfo | null | undefined> {
  try {
    return await s.deps.stored!(s.rec.bucket, key, stops.soft);
  } catch {
    if (stops.soft.aborted) throw stops.soft.reason;
    return undefined;
  }
}

/** Item codes of a successful operation (3, and 4–6 while or after notifying). */
function isSuccess(code: number): boolean {
  return code === 3 || code === 4 || code === 5 || code === 6;
}

/**
 * Submits one operation, named as the transfer's (the app shows the task in its Tasks screen),
 * and queries its status until the task ends; throws when it cannot tell.
 */
async function follow(
  s: SameBytesStep,
  op: FmgrOp & { key: string },
  force: 0 | 1,
  stops: Stops,
): Promise<FmgrTaskStatus> {
  const { deps } = s;
  const fmgr = deps.fmgr!;
  const { persistentId } = await fmgr.fmgrSubmit(op.op, [op], { force }, stops.soft, {
    transferId: s.rec.id,
    key: op.key,
  });
  const start = deps.now();
  let errors = 0;
  for (let i = 0; ; i++) {
    await sleep(POLL_DELAYS_MS[i] ?? 1000, stops.soft);
    try {
      const st = await fmgr.fmgrStatus(persistentId, stops.soft);
      errors = 0;
      if (FMGR_TERMINAL_TASK_CODES.has(st.code)) return st;
    } catch (e) {
      if (stops.soft.aborted) throw stops.soft.reason;
      if (++errors >= MAX_POLL_ERRORS) throw e;
    }
    if (deps.now() - start > FOLLOW_TIMEOUT_MS)
      throw new Error(`task ${persistentId} still running after ${FOLLOW_TIMEOUT_MS / 1000} s`);
  }
}

/** Deletes the object a copy made under `key` that is not this file (best effort: the upload's conflict handling follows). */
async function removeCopy(s: SameBytesStep, stops: Stops, key: string): Promise<void> {
  const { rec, hooks } = s;
  try {
    const t = await follow(s, { op: 'delete', bucket: rec.bucket, key }, 0, stops);
    if (!t.items[0] || !isSuccess(t.items[0].code)) throw new Error(t.items[0]?.error || `task code ${t.code}`);
  } catch (e) {
    if (stops.soft.aborted) throw stops.soft.reason;
    hooks.log({
      level: 'warn',
      kind: 'copy-unverified',
      message: `the wrong copy under "${key}" could not be deleted (${(e as Error).message})`,
    });
  }
}
