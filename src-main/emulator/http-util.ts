import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Small reply and body helpers shared by the emulator's routes. Error bodies follow the
 * interface document: upload endpoints and VCA answer `{code: "<status>", message}`, the
 * Fmgr endpoints `{code: <status>, message}`.
 */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly codeStyle: 'string' | 'number' = 'string',
  ) {
    super(message);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  codeStyle: 'string' | 'number' = 'string',
): void {
  sendJson(res, status, { code: codeStyle === 'string' ? String(status) : status, message });
}

export interface ReadBodyOptions {
  /** Bytes above which the request is refused with 413 before reading further. */
  limit: number;
  /** Require a Content-Length header (411 when missing). */
  requireLength?: boolean;
}

/**
 * Reads a whole request body, refusing (HttpError 413) a declared or actual size above the
 * limit and (HttpError 400) a body shorter than its Content-Length.
 */
export async function readBody(req: IncomingMessage, opts: ReadBodyOptions): Promise<Buffer> {
  const declaredHeader = req.headers['content-length'];
  if (declaredHeader === undefined && opts.requireLength) throw new HttpError(411, 'Content-Length is required');
  const declared = declaredHeader === undefined ? undefined : Number(declaredHeader);
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0))
    throw new HttpError(400, 'invalid Content-Length');
  if (declared !== undefined && declared > opts.limit) {
    req.resume();
    throw new HttpError(413, `request body of ${declared} bytes is larger than the ${opts.limit} allowed`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    req.on('data', (c: Buffer) => {
      total += c.length;
      if (total > opts.limit) {
        reject(new HttpError(413, `request body is larger than the ${opts.limit} bytes allowed`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve());
    req.on('aborted', () => reject(new HttpError(400, 'request body ended before its Content-Length')));
    req.on('error', (e) => reject(new HttpError(400, `request body could not be read: ${e.message}`)));
  });
  if (declared !== undefined && total !== declared)
    throw new HttpError(400, `request body has ${total} bytes, Content-Length says ${declared}`);
  return Buffer.concat(chunks, total);
}

/** Parses an application/x-www-form-urlencoded body; values stay as sent (not Base64-decoded). */
export function parseForm(body: Buffer): URLSearchParams {
  return new URLSearchParams(body.toString('utf8'));
}

/**
 * Reads and discards the rest of a request body, up to `limit` bytes, so that a reply sent
 * before the body was read is not lost to a reset when the connection closes with unread
 * bytes in it. Resolves true once the whole body was read; false when it is larger than the
 * limit or the request broke off (the connection must close then).
 */
export function drainBody(req: IncomingMessage, limit: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ok: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!ok) req.pause();
      resolve(ok);
    };
    const onData = (c: Buffer) => {
      seen += c.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
    req.resume();
  });
}
