import http from 'node:http';
import https from 'node:https';
import { backoffMs } from '../common/backoff';
import { signNotification } from '../protocol/tokens';

/**
 * Notifications the emulator sends on its own (Fmgr task notifications, VCA results):
 * one signed POST, retried with exponential backoff until the receiver answers 200.
 *
 * Signature (protocol-notes "Management token", last point): the Authorization header is
 * `AK:b64(hex(HMAC-SHA1(SK, fullUrl + "\n" + b64(body))))` where fullUrl is the notify URL
 * normalized by WHATWG URL (`new URL(url).href`, e.g. `http://h:1` becomes `http://h:1/`)
 * and body is the exact bytes POSTed.
 */

export interface NotifyRetry {
  /** Total attempts, at least 1. */
  attempts: number;
  /** Delay before the second attempt; doubles each attempt after. */
  baseDelayMs: number;
}

/** Defaults for a long-running emulator; tests pass smaller delays. */
export const DEFAULT_NOTIFY_RETRY: NotifyRetry = { attempts: 5, baseDelayMs: 1000 };
export const NOTIFY_ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_NOTIFY_DELAY_MS = 60_000;

/**
 * Delay before attempt number `attempt` (0-based; attempt 0 has no delay): baseDelayMs·2^(attempt−1),
 * capped at a minute. Deterministic (no jitter): one emulator notifies a handful of receivers.
 */
export function notifyRetryDelayMs(attempt: number, baseDelayMs: number): number {
  if (attempt <= 0) return 0;
  return backoffMs(attempt - 1, { baseMs: baseDelayMs, maxMs: MAX_NOTIFY_DELAY_MS });
}

export class NotifyUrlError extends Error {
  override readonly name = 'NotifyUrlError';
}

/** Parses a notify URL; only http and https are allowed. Throws NotifyUrlError. */
export function parseNotifyUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NotifyUrlError(`not an absolute URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new NotifyUrlError(`only http and https notify URLs are allowed, not ${url.protocol}`);
  return url;
}

export interface NotifyAttemptResult {
  /** HTTP status of the receiver's answer, or 0 when none arrived. */
  status: number;
  /** Why the attempt failed, when it did. */
  error?: string;
}

export interface Signer {
  accessKey: string;
  secretKey: string;
}

/** One signed POST. Resolves with the status (0 on network error or timeout); never rejects. */
export function postSigned(
  url: URL,
  body: Buffer,
  contentType: string,
  signer: Signer,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<NotifyAttemptResult> {
  const auth = signNotification(signer.accessKey, signer.secretKey, url.href, body);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: NotifyAttemptResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    if (opts.signal?.aborted) return done({ status: 0, error: 'aborted' });
    const req = lib.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': contentType,
        'Content-Length': body.length,
        Authorization: auth,
        'User-Agent': 'blocklift-emulator',
      },
      timeout: opts.timeoutMs ?? NOTIFY_ATTEMPT_TIMEOUT_MS,
      signal: opts.signal,
      agent: false,
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          error: res.statusCode === 200 ? undefined : `receiver answered ${res.statusCode}`,
        }),
      );
      res.on('error', (e) => done({ status: 0, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', (e) => done({ status: 0, error: e.message }));
    req.end(body);
  });
}

/**
 * Sends a notification until the receiver answers 200, at most `retry.attempts` times,
 * waiting notifyRetryDelayMs between attempts. Resolves true on a 200, false when every
 * attempt failed or `signal` fired; never rejects.
 */
export async function sendNotification(
  url: URL,
  body: Buffer,
  contentType: string,
  signer: Signer,
  retry: NotifyRetry,
  signal?: AbortSignal,
): Promise<boolean> {
  const attempts = Math.max(1, Math.floor(retry.attempts));
  for (let attempt = 0; attempt < attempts; attempt++) {
    const delayMs = notifyRetryDelayMs(attempt, retry.baseDelayMs);
    if (delayMs > 0 && !(await sleep(delayMs, signal))) return false;
    if (signal?.aborted) return false;
    const r = await postSigned(url, body, contentType, signer, { signal });
    if (r.status === 200) return true;
  }
  return false;
}

/** Resolves true after ms, or false as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    if (ms <= 0) return resolve(true);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
