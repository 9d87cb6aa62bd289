import path from 'node:path';
import type { ServiceError } from '../protocol/errors';
import { etagOfBuffer } from '../protocol/etag';
import { complete } from './complete';
import { keptChangingWhileRead, type FileSource } from './file-source';
import type { TransferRecord } from './ports';
import type { CallName, Decision } from './retry';
import type { IssuedToken } from './tokens';
import { MAX_REREADS_ON_CHANGE, type SmallRead } from './small-reader';
import type { Stops, UploadDeps, UploadHooks, UploadOutcome } from './upload-deps';
import type { UploadToken } from './upload-token';

/** A small file's bytes, already read (small-reader.ts), or a larger one open, read whole through FileSource. */
export type FormFile = SmallRead | { source: FileSource; size: number; mtimeMs: number };

/** What a small file's upload needs of its FileUpload (file-upload.ts builds it). */
export interface FormStep {
  deps: UploadDeps;
  rec: TransferRecord;
  hooks: UploadHooks;
  file: FormFile;
  tokens: UploadToken;
  decide(e: ServiceError, call: CallName, tok: IssuedToken | undefined, attempt: number): Decision;
}

/**
 * Uploads a small file in one form-upload request (`POST /file/upload`): the whole file is
 * read into memory (holding its size of the scheduler's byte budget for the whole upload,
 * retries included; a file of at most SMALL_FILE_MAX_BYTES comes already read, and takes its
 * budget just after), its etag computed from those bytes, and every attempt sends exactly
 * them. The reply gets what mkfile's gets (complete.ts): the hash check, the conflict policy
 * on 406, 579, callback replies, and retry.ts's decisions for the call 'form'. Nothing is
 * stored until the end: a stopped or killed form upload starts over (one request).
 */
export async function uploadSmallFile(f: FormStep, stops: Stops): Promise<UploadOutcome> {
  const { deps, rec } = f;
  const size = 'data' in f.file ? f.file.data.length : f.file.size;
  const releaseBytes = await deps.scheduler.bytes.acquire(Math.max(1, size), rec.priority, stops.soft);
  try {
    const { data, mtimeMs } = 'source' in f.file ? await readWhole(f, f.file) : f.file;
    f.hooks.progress(0, data.length);
    const fileName = path.basename(rec.localPath);
    const outcome = await complete(
      {
        deps,
        rec,
        tokens: f.tokens,
        etag: etagOfBuffer(data),
        call: 'form',
        send: async (token, callback, s) => {
          const release = await deps.scheduler.requests.acquire(1, rec.priority, s.soft);
          try {
            await deps.limiter.take(data.length, s.soft);
            const replied = deps.scheduler.sending('form'); // its round trip feeds the window
            return await deps.client
              .formUpload({
                token,
                data,
                callback,
                key: f.tokens.currentKey,
                fileName,
                mimeType: rec.options.mimeType,
                deadlineDays: rec.options.deadlineDays,
                vars: rec.options.vars,
                signal: s.hard,
              })
              .then(
                (v) => (replied(true), v),
                (e: unknown) => {
                  replied(false);
                  throw e;
                },
              );
          } finally {
            release();
          }
        },
        decide: f.decide,
        retried: (reason, delayMs, about) => f.hooks.retried(reason, delayMs, about),
        log: (line) => f.hooks.log(line),
        // 412 or a refused "block list" cannot concern a form upload: sending again is the re-upload.
        reuploadBlocks: () => Promise.resolve(),
      },
      stops,
    );
    f.hooks.progress(data.length, data.length);
    return { ...outcome, file: { size: data.length, mtimeMs } };
  } finally {
    releaseBytes();
  }
}

/** The whole file, read again (at most twice) when its size or mtime changed while it was read. */
async function readWhole(
  f: FormStep,
  file: { source: FileSource; size: number; mtimeMs: number },
): Promise<{ data: Buffer; mtimeMs: number }> {
  let { size, mtimeMs } = file;
  for (let rereads = 0; ; rereads++) {
    const data = Buffer.allocUnsafe(size);
    await file.source.readAt(data, 0);
    if (!(await file.source.changedSince(size, mtimeMs))) return { data, mtimeMs };
    if (rereads >= MAX_REREADS_ON_CHANGE || size > f.deps.formUploadMaxBytes)
      throw keptChangingWhileRead(f.rec.localPath);
    ({ size, mtimeMs } = await file.source.stat());
  }
}
