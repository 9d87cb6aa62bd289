import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';

/**
 * The download half of the Fmgr `fetch` operation: GET a URL into a file, following a few
 * redirects, with a size cap and a time limit, computing the MD5 on the way.
 */

export const FETCH_MAX_BYTES = 1024 * 1024 * 1024;
export const FETCH_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

/** Why a fetch failed; the message is what the task item's `error` shows. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
}

export interface FetchedFile {
  size: number;
  /** Lowercase hex MD5 of the bytes. */
  md5: string;
  /** The URL the bytes came from after redirects. */
  finalUrl: string;
}

/**
 * Downloads `url` (http or https) into `destFile`. Resolves with size and MD5; rejects with
 * FetchError (status other than 200, too large, timeout, network error, abort), removing
 * the partial file.
 */
export async function fetchToFile(
  url: string,
  destFile: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; maxBytes?: number } = {},
): Promise<FetchedFile> {
  let current = parseFetchUrl(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const r = await getOnce(current, destFile, opts);
    if (r.kind === 'done') return { ...r.file, finalUrl: current.href };
    try {
      current = parseFetchUrl(new URL(r.location, current).href);
    } catch (e) {
      throw new FetchError(`redirect to an invalid location: ${(e as Error).message}`);
    }
  }
  throw new FetchError(`more than ${MAX_REDIRECTS} redirects`);
}

export function parseFetchUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchError(`fetchURL is not an absolute URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError(`fetchURL must be http or https, not ${url.protocol}`);
  return url;
}

type Once = { kind: 'done'; file: { size: number; md5: string } } | { kind: 'redirect'; location: string };

function getOnce(
  url: URL,
  destFile: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; maxBytes?: number },
): Promise<Once> {
  const maxBytes = opts.maxBytes ?? FETCH_MAX_BYTES;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<Once>((resolve, reject) => {
    let settled = false;
    let out: WriteStream | undefined;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      req.destroy();
      out?.destroy();
      void rm(destFile, { force: true }).finally(() => reject(new FetchError(message)));
    };
    const req = lib.get(url, {
      timeout: opts.timeoutMs ?? FETCH_TIMEOUT_MS,
      signal: opts.signal,
      agent: false,
      headers: { 'User-Agent': 'blocklift-emulator-fetch' },
    });
    req.on('timeout', () => fail('the source did not answer in time'));
    req.on('error', (e) => fail(opts.signal?.aborted ? 'fetch aborted' : `could not reach the source: ${e.message}`));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status) && res.headers.location) {
        res.resume();
        settled = true;
        resolve({ kind: 'redirect', location: res.headers.location });
        return;
      }
      if (status !== 200) {
        res.resume();
        fail(`the source answered HTTP ${status}`);
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.resume();
        fail(`the source is ${declared} bytes, more than the ${maxBytes} a fetch may take`);
        return;
      }
      const md5 = createHash('md5');
      let size = 0;
      out = createWriteStream(destFile);
      out.on('error', (e) => fail(`could not write the fetched file: ${e.message}`));
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          fail(`the source is more than the ${maxBytes} bytes a fetch may take`);
          return;
        }
        md5.update(chunk);
      });
      res.on('error', (e) => fail(`the source's answer broke off: ${e.message}`));
      res.on('aborted', () => fail("the source's answer broke off"));
      res.pipe(out);
      out.on('finish', () => {
        if (settled) return;
        if (!res.complete) {
          fail("the source's answer broke off");
          return;
        }
        settled = true;
        resolve({ kind: 'done', file: { size, md5: md5.digest('hex') } });
      });
    });
  });
}
