import http from 'node:http';
import https from 'node:https';
import type { EmulatorContext } from './contracts';
import { objectFromUrl } from './fmgr-urls';

/**
 * Whether a VCA source can be fetched, checked for real: a download URL of the emulator's
 * own objects is looked up in the object store; any other http(s) URL gets a HEAD (then a
 * one-byte ranged GET when HEAD is not allowed) and must answer 2xx.
 */

export const SOURCE_CHECK_TIMEOUT_MS = 10_000;

export type SourceCheck = { ok: true } | { ok: false; reason: string };

export async function checkVcaSource(
  ctx: Pick<EmulatorContext, 'objects' | 'objectUrl'>,
  source: string,
  signal?: AbortSignal,
): Promise<SourceCheck> {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return { ok: false, reason: 'source is not an absolute URL' };
  }
  const own = objectFromUrl(ctx, source);
  if (own) {
    return ctx.objects.stat(own.bucket, own.key)
      ? { ok: true }
      : { ok: false, reason: `source cannot be fetched: no object ${own.bucket}:${own.key}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      reason: `source cannot be fetched: only http and https URLs are analysed, not ${url.protocol}`,
    };
  let status = await probe(url, 'HEAD', signal);
  if (status === 405 || status === 501) status = await probe(url, 'GET', signal);
  if (typeof status === 'string') return { ok: false, reason: `source cannot be fetched: ${status}` };
  if (status < 200 || status >= 300) return { ok: false, reason: `source cannot be fetched: HTTP ${status}` };
  return { ok: true };
}

/** Resolves with the status, or with a text saying why no answer came. Never rejects. */
function probe(url: URL, method: 'HEAD' | 'GET', signal?: AbortSignal): Promise<number | string> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: number | string) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = lib.request(url, {
      method,
      headers:
        method === 'GET'
          ? { Range: 'bytes=0-0', 'User-Agent': 'blocklift-emulator-vca' }
          : { 'User-Agent': 'blocklift-emulator-vca' },
      timeout: SOURCE_CHECK_TIMEOUT_MS,
      signal,
      agent: false,
    });
    req.on('response', (res) => {
      done(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('timeout', () => {
      done('no answer in time');
      req.destroy();
    });
    req.on('error', (e) => done(e.message));
    req.end();
  });
}
