import busboy from 'busboy';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { EtagHasher } from '../protocol/etag';
import type { Clock, EmulatorConfig } from './contracts';
import { HttpError, sendJson } from './http-util';
import type { SqliteObjectStore } from './object-store';
import { checkUploadToken } from './upload-auth';
import {
  checkOverwrite,
  checkSizeLimit,
  resolveUploadTarget,
  submitPersistentOps,
  uploadReply,
  type SubmitPersistentOps,
} from './upload-policy';

/**
 * `POST /file/upload`: the form upload the official SDKs use for small files (the browser
 * SDK for files up to one block), although the chunked-upload document does not describe
 * it. multipart/form-data with the fields `token`, `file`, and optionally `key`,
 * `mimeType`, `deadline` (days) and `x:<name>` variables, in any order (the browser SDK
 * sends the file first). The file is streamed to disk and hashed on the way; then the same
 * policy checks and reply as mkfile apply (upload-policy.ts).
 */

/** Longest value of a form field (the token carries the whole policy). */
export const MAX_FORM_FIELD_BYTES = 64 * 1024;
const MAX_FORM_FIELDS = 100;
/** Largest file a form upload takes; larger files go through the chunked upload. */
export const MAX_FORM_FILE_BYTES = 1024 * 1024 * 1024;
const X_VAR = /^x:[A-Za-z0-9_-]{1,100}$/;

export interface FormUploadDeps {
  config: EmulatorConfig;
  clock: Clock;
  store: SqliteObjectStore;
  submitPersistentOps?: SubmitPersistentOps;
}

interface ReceivedFile {
  size: number;
  hash: string;
  filename: string;
  mimeType: string;
}

interface ReceivedForm {
  fields: Map<string, string>;
  file?: ReceivedFile;
}

export async function handleFormUpload(deps: FormUploadDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data'))
    throw new HttpError(400, 'a form upload is multipart/form-data with the fields token and file');
  const tmp = deps.store.tmpPath();
  try {
    const form = await receiveForm(req, tmp);
    const token = form.fields.get('token');
    if (!token) throw new HttpError(401, 'the form has no token field (an upload token is required)');
    const grant = checkUploadToken(token, deps.config, deps.clock.now());
    if (!deps.store.hasBucket(grant.bucket)) throw new HttpError(631, `bucket "${grant.bucket}" does not exist`);
    const file = form.file;
    if (!file) throw new HttpError(400, 'the form has no file field');
    const target = resolveUploadTarget(
      grant,
      {
        key: form.fields.get('key'),
        mimeType: form.fields.get('mimeType') ?? (file.mimeType || undefined),
        deadline: form.fields.get('deadline'),
        keyWhere: 'the form field key',
      },
      deps.submitPersistentOps,
    );
    checkSizeLimit(grant, file.size);
    checkOverwrite(deps.store, grant, target.key);
    const stored = deps.store.putHashedFile(grant.bucket, target.key, tmp, file.size, file.hash, {
      mimeType: target.mimeType,
      deadlineDays: target.deadlineDays,
    });
    const persistentId = submitPersistentOps(deps, grant, target);
    const vars = Object.fromEntries([...form.fields].filter(([name]) => X_VAR.test(name)));
    const reply = await uploadReply(deps, req, grant, stored, {
      vars,
      fname: file.filename || undefined,
      persistentId,
    });
    sendJson(res, 200, reply);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Parses the multipart body: fields into a map (each at most MAX_FORM_FIELD_BYTES, no
 * repeats), the one `file` part streamed into `tmp` and hashed (etag) on the way. Rejects
 * with HttpError 400 (413 for a file over MAX_FORM_FILE_BYTES) and stops reading then; the
 * caller's error reply drains the rest.
 */
function receiveForm(req: IncomingMessage, tmp: string): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fieldSize: MAX_FORM_FIELD_BYTES,
          fields: MAX_FORM_FIELDS,
          files: 1,
          parts: MAX_FORM_FIELDS + 1,
          fileSize: MAX_FORM_FILE_BYTES,
        },
      });
    } catch (e) {
      reject(new HttpError(400, `malformed multipart/form-data: ${(e as Error).message}`));
      return;
    }
    const fields = new Map<string, string>();
    let file: Promise<ReceivedFile> | undefined;
    let failed = false;
    const fail = (status: number, message: string) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      reject(new HttpError(status, message));
    };
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated)
        return fail(400, `form field "${name.slice(0, 100)}" is longer than ${MAX_FORM_FIELD_BYTES} bytes`);
      if (fields.has(name)) return fail(400, `form field "${name.slice(0, 100)}" is given twice`);
      fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(400, `unexpected file field "${name.slice(0, 100)}": the file goes in the field "file"`);
      }
      stream.on('limit', () =>
        fail(
          413,
          `the file is larger than the ${MAX_FORM_FILE_BYTES} bytes a form upload takes; use mkblk/bput/mkfile`,
        ),
      );
      file = saveFile(stream, tmp, info);
      file.catch((e: unknown) => fail(400, `the file could not be stored: ${(e as Error).message}`));
    });
    parser.on('filesLimit', () => fail(400, 'a form upload takes one file'));
    parser.on('fieldsLimit', () => fail(400, `a form upload takes at most ${MAX_FORM_FIELDS} fields`));
    parser.on('partsLimit', () => fail(400, `a form upload takes at most ${MAX_FORM_FIELDS + 1} parts`));
    parser.on('error', (e: Error) => fail(400, `malformed multipart/form-data: ${e.message}`));
    parser.on('close', () => {
      if (failed) return;
      if (!file) return resolve({ fields });
      file.then(
        (f) => {
          if (!failed) resolve({ fields, file: f });
        },
        () => undefined,
      );
    });
    req.on('aborted', () => fail(400, 'the request body ended early'));
    req.pipe(parser);
  });
}

/**
 * Streams one file part into `tmp`, computing its size and etag on the way (no whole-file
 * buffer). Each piece is written with a synchronous write as it arrives (a few µs into the
 * page cache): a form upload is mostly small files, for which a write stream's asynchronous
 * open, writes and close cost more than the bytes themselves.
 */
function saveFile(
  stream: Readable & { truncated?: boolean },
  tmp: string,
  info: { filename?: string; mimeType: string },
): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    const hasher = new EtagHasher();
    let fd: number | undefined;
    const finish = (e?: unknown) => {
      if (fd === undefined) return;
      const open = fd;
      fd = undefined;
      stream.removeListener('data', onData);
      try {
        closeSync(open);
      } catch (closeError) {
        e ??= closeError;
      }
      if (e !== undefined) {
        stream.resume(); // the rest of the part is read and dropped; the parser goes on
        reject(e instanceof Error ? e : new Error(String(e)));
      } else if (stream.truncated) reject(new Error('the file was cut at the size limit'));
      else
        resolve({ size: hasher.bytes, hash: hasher.digest(), filename: info.filename ?? '', mimeType: info.mimeType });
    };
    const onData = (piece: Buffer) => {
      try {
        hasher.update(piece);
        for (let done = 0; done < piece.length;) done += writeSync(fd!, piece, done, piece.length - done);
      } catch (e) {
        finish(e);
      }
    };
    try {
      fd = openSync(tmp, 'w');
    } catch (e) {
      stream.resume();
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    stream.on('data', onData);
    stream.once('end', () => finish());
    stream.once('error', (e) => finish(e));
    stream.once('close', () => finish(new Error('the file part ended early')));
  });
}
