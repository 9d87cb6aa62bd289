import type { IncomingMessage, ServerResponse } from 'node:http';
import { urlsafeB64DecodeText } from '../protocol/base64';
import { parseFmgrStatus, parseVcaJob } from '../protocol/client';
import { isServiceError } from '../protocol/errors';
import { Fields } from '../protocol/reply';
import { verifyNotification } from '../protocol/tokens';
import { NOTIFY_FMGR_PATH, NOTIFY_VCA_PATH } from './deps';
import type { FmgrTracker } from './fmgr-tracker';
import { TaskError } from './task-error';
import type { VcaTracker } from './vca-tracker';

/**
 * The receiver of the service's Fmgr and VCA notifications, as a request handler an HTTP
 * server mounts (headless server, desktop app; tests use a bare loopback server). Handles
 * `POST <base>/notify/fmgr` and `POST <base>/notify/vca`, where <base> is the path of the
 * public base URL (the server may pass the path with or without that prefix).
 *
 * Contract, per request:
 * - The Authorization header must be the service's signature (protocol-notes, last point of
 *   "Management token") over the full URL the service posted to and the Base64 of the body.
 *   The full URL is rebuilt from the configured public base URL and req.url, normalized like
 *   the service does (WHATWG URL href). The signing key is the secret of the account whose
 *   access key the header names. Any mismatch: 401, and nothing changes.
 * - Fmgr: the body is URL-safe Base64 of the task JSON (plain JSON is accepted too). VCA:
 *   the body is JSON {jobId, code, desc, results}. A body that is not that: 400.
 * - A valid notification updates the task or job at once (trackers' applyNotification)
 *   before the answer, which is 200. A failure to store it answers 500, so the service
 *   sends it again.
 */
export interface NotificationReceiverOptions {
  /** The public base URL given to the service (read per request; settings may change). */
  publicBaseUrl: () => string | undefined;
  /** The account whose access key signed a notification, with its secret key. */
  accountByAccessKey: (accessKey: string) => { accountId: number; secretKey: string } | undefined;
  fmgr: FmgrTracker;
  vca: VcaTracker;
  /** Larger bodies are refused with 413; default 1 MiB. */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

class ReceiveError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function createNotificationHandler(
  opts: NotificationReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(opts, req)
      .then(() => reply(res, 200, { ok: true }))
      .catch((e: unknown) => {
        if (e instanceof ReceiveError) reply(res, e.status, { error: e.message });
        else
          reply(res, 500, { error: `could not store the notification: ${e instanceof Error ? e.message : String(e)}` });
      });
  };
}

async function handle(opts: NotificationReceiverOptions, req: IncomingMessage): Promise<void> {
  const base = opts.publicBaseUrl();
  if (!base) throw new ReceiveError(404, 'notifications are off: no public base URL is configured');
  let baseUrl: URL;
  try {
    baseUrl = new URL(base);
  } catch {
    throw new ReceiveError(500, 'the configured public base URL is not a URL');
  }
  const basePath = baseUrl.pathname.replace(/\/+$/, '');
  const raw = req.url ?? '/';
  const rest =
    basePath !== '' && (raw === basePath || raw.startsWith(`${basePath}/`) || raw.startsWith(`${basePath}?`))
      ? raw.slice(basePath.length)
      : raw;
  const pathname = rest.split('?')[0] ?? '';
  const kind = pathname === NOTIFY_FMGR_PATH ? 'fmgr' : pathname === NOTIFY_VCA_PATH ? 'vca' : undefined;
  if (!kind) throw new ReceiveError(404, `no notification receiver at ${pathname}`);
  if (req.method !== 'POST') throw new ReceiveError(405, 'notifications are POSTed');
  const body = await readBody(req, opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);

  const auth = req.headers.authorization?.trim();
  const accessKey = auth?.split(':')[0];
  const account = accessKey ? opts.accountByAccessKey(accessKey) : undefined;
  const fullUrl = new URL(`${baseUrl.protocol}//${baseUrl.host}${basePath}${rest}`).href;
  if (!auth || !accessKey || !account || !verifyNotification(auth, accessKey, account.secretKey, fullUrl, body)) {
    throw new ReceiveError(401, 'the notification signature does not match');
  }

  try {
    if (kind === 'fmgr') opts.fmgr.applyNotification(account.accountId, parseFmgrStatus(fields(decodeFmgrBody(body))));
    else opts.vca.applyNotification(account.accountId, parseVcaJob(fields(parseJson(body.toString('utf8')))));
  } catch (e) {
    if (isServiceError(e) || e instanceof TaskError)
      throw new ReceiveError(400, `not a ${kind} notification: ${isServiceError(e) ? e.serviceMessage : e.message}`);
    throw e;
  }
}

function decodeFmgrBody(body: Buffer): unknown {
  const text = body.toString('utf8').trim();
  if (text.startsWith('{')) return parseJson(text);
  try {
    return parseJson(urlsafeB64DecodeText(text));
  } catch (e) {
    if (e instanceof ReceiveError) throw e;
    throw new ReceiveError(400, 'the Fmgr notification body is not URL-safe Base64');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ReceiveError(400, 'the notification body is not JSON');
  }
}

function fields(v: unknown): Fields {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ReceiveError(400, 'the notification body is not a JSON object');
  return new Fields('fmgr-status', { status: 200, requestId: undefined }, v as Record<string, unknown>);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new ReceiveError(413, `notification body larger than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (c: Buffer) => {
      total += c.length;
      if (total > limit) {
        req.destroy();
        reject(new ReceiveError(413, `notification body larger than ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, total)));
    req.on('error', (e) => reject(new ReceiveError(400, `could not read the body: ${e.message}`)));
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
