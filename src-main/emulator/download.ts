import { closeSync, createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ObjectStore } from './contracts';
import { HttpError } from './http-util';

/** A satisfiable single byte range, inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Parses a Range header against a size. Returns undefined to serve the whole object (no
 * header, a unit other than bytes, or several ranges, which this server does not combine),
 * a range, or 'unsatisfiable' (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return undefined;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return undefined;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return undefined; // invalid range: ignored (RFC 9110)
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * Bucket and key of a download path `/dl/<bucket>/<key…>`, each percent-decoded, the key
 * exactly as the path spells it: trailing, leading and double slashes are part of the key
 * (`/dl/b/photos/` is the key `photos/`, `/dl/b//` the key `/`). Undefined when the path is
 * not a download path or names no key.
 */
export function downloadTarget(urlPath: string): { bucket: string; key: string } | undefined {
  if (!urlPath.startsWith('/dl/')) return undefined;
  const rest = urlPath.slice('/dl/'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { bucket: decodeURIComponent(rest.slice(0, slash)), key: decodeURIComponent(rest.slice(slash + 1)) };
}

/** What a download needs besides the request: the objects and the set of open file streams (closed on shutdown). */
export interface DownloadDeps {
  objects: ObjectStore;
  /** Every file stream serving a download is in here while open; the server destroys them when it closes. */
  openStreams: Set<Readable>;
}

/**
 * `GET|HEAD /dl/<bucket>/<key…>`: the object's bytes, with single-range support. Settles
 * once the reply is sent or abandoned (client gone, stream destroyed), never later.
 */
export function handleDownload(
  deps: DownloadDeps,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
): Promise<void> {
  const objects = deps.objects;
  const bucket = params.bucket ?? '';
  const key = params['*'] ?? '';
  if (!objects.hasBucket(bucket)) throw new HttpError(404, `bucket "${bucket}" does not exist`);
  // Opened with the lookup, before any overwrite can swap the object's file: the reader
  // keeps the bytes it found (POSIX keeps an open file alive after its name goes).
  const opened = objects.openContent(bucket, key);
  if (!opened) throw new HttpError(404, `no object "${key}" in bucket "${bucket}"`);
  const { object: obj, fd } = opened;
  let streaming = false;
  try {
    const range = parseRange(req.headers.range, obj.size);
    const headers: Record<string, string | number> = {
      'Accept-Ranges': 'bytes',
      ETag: `"${obj.hash}"`,
      'Last-Modified': new Date(obj.putTime).toUTCString(),
      'Content-Type': obj.mimeType,
    };
    if (range === 'unsatisfiable') {
      res.writeHead(416, { ...headers, 'Content-Type': 'application/json', 'Content-Range': `bytes */${obj.size}` });
      res.end(JSON.stringify({ code: '416', message: `range not satisfiable: the object has ${obj.size} bytes` }));
      return Promise.resolve();
    }
    const { start, end } = range ?? { start: 0, end: obj.size - 1 };
    const length = Math.max(0, end - start + 1);
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${obj.size}`;
    headers['Content-Length'] = length;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return Promise.resolve();
    }
    streaming = true;
    return streamFile(deps, fd, start, end, res);
  } finally {
    if (!streaming) closeSync(fd);
  }
}

/** Pipes bytes start…end (inclusive) of the open file `fd` into the reply; the stream closes fd. */
function streamFile(deps: DownloadDeps, fd: number, start: number, end: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const stream = createReadStream('', { fd, start, end, autoClose: true });
    deps.openStreams.add(stream);
    const done = () => {
      deps.openStreams.delete(stream);
      stream.destroy();
      resolve();
    };
    stream.on('error', () => {
      res.destroy();
      done();
    });
    // A pipelined reply queued behind another may never emit 'close' once its client is
    // gone; the stream's own close (destroyed on shutdown) ends the wait then.
    stream.on('close', done);
    res.on('close', done);
    res.on('finish', done);
    stream.pipe(res);
  });
}

/**
 * The download URL of an object: each key segment percent-encoded, the slashes kept (an
 * empty segment stays empty: `photos/` → `…/photos/`, `/` → `…//`); keys with `.`/`..`
 * segments are encoded whole (so no URL parser folds them). `downloadTarget` reads it back.
 */
export function objectUrl(downloadBaseUrl: string, bucket: string, key: string): string {
  const segs = key.split('/');
  const path = segs.some((s) => s === '.' || s === '..')
    ? encodeURIComponent(key)
    : segs.map(encodeURIComponent).join('/');
  return `${downloadBaseUrl}/${encodeURIComponent(bucket)}/${path}`;
}
