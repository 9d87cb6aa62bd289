import type { IncomingMessage } from 'node:http';
import { Base64Error, urlsafeB64DecodeText } from '../protocol/base64';
import type { Clock, EmulatorConfig, ObjectStore } from './contracts';
import { HttpError } from './http-util';
import { keyProblem } from './object-store';
import { checkUploadToken, type UploadGrant } from './upload-auth';

/**
 * Checks shared by mkblk, bput and mkfile, in the order the service applies them. A query
 * string on their URLs (SDKs add `?chunk=i&chunks=n`) is not looked at.
 */
export interface UploadRequestBasics {
  grant: UploadGrant;
  batch: string;
  /** The key of the Key header, decoded, when the header is present. */
  headerKey?: string;
}

export function uploadBasics(
  req: IncomingMessage,
  deps: { config: EmulatorConfig; objects: ObjectStore; clock: Clock },
  contentType: 'application/octet-stream' | 'text/plain',
): UploadRequestBasics {
  const grant = checkUploadToken(req.headers.authorization, deps.config, deps.clock.now());
  if (!deps.objects.hasBucket(grant.bucket)) throw new HttpError(631, `bucket "${grant.bucket}" does not exist`);
  // Any non-empty text, as the service takes it (SDKs send UUIDs, but not all of them).
  const batch = headerValue(req, 'uploadbatch');
  if (batch === undefined || batch.trim() === '')
    throw new HttpError(400, 'the UploadBatch header (one random UUID per file upload) is required');
  const type = (headerValue(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // A block body without Content-Type is octet-stream (browser SDKs send a Blob without a type).
  const missingIsFine = type === '' && contentType === 'application/octet-stream';
  if (type !== contentType && !missingIsFine)
    throw new HttpError(400, `Content-Type must be ${contentType}${type ? `, not ${type}` : ''}`);
  const rawKey = headerValue(req, 'key');
  const headerKey = rawKey === undefined ? undefined : decodeKey(rawKey, 'Key header');
  return { grant, batch, headerKey };
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Decodes a URL-safe Base64 key and checks it can be a key; HttpError 400 otherwise. */
export function decodeKey(encoded: string, where: string): string {
  let key: string;
  try {
    key = urlsafeB64DecodeText(encoded);
  } catch (e) {
    if (e instanceof Base64Error) throw new HttpError(400, `${where}: the key must be URL-safe Base64 (${e.message})`);
    throw e;
  }
  const problem = keyProblem(key);
  if (problem) throw new HttpError(400, `${where}: ${problem}`);
  return key;
}

/** A whole non-negative number from a path segment, or HttpError 400 naming it. */
export function pathInt(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d{1,16}$/.test(value))
    throw new HttpError(400, `${name} in the path must be a whole number, not "${value ?? ''}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new HttpError(400, `${name} is too large`);
  return n;
}

/** The request's Content-Length: required (411), a whole number (400). */
export function contentLength(req: IncomingMessage): number {
  const v = headerValue(req, 'content-length');
  if (v === undefined)
    throw new HttpError(411, 'Content-Length is required (chunked transfer encoding is not accepted)');
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new HttpError(400, `invalid Content-Length "${v}"`);
  return Number(v);
}
