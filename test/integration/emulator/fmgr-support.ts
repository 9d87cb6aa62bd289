import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import type { FmgrTaskStatus, VcaJob } from '../../../src-main/protocol/types';
import { urlsafeB64DecodeText } from '../../../src-main/protocol/base64';
import { verifyNotification } from '../../../src-main/protocol/tokens';
import type { TestEmulator } from '../../helpers/emulator';

/**
 * Shared by the Fmgr and VCA integration tests: upload through the real protocol, poll
 * the real status endpoints, and a real notification receiver on 127.0.0.1.
 */

/** Uploads `data` (at most 4 MiB) to bucket:key with mkblk + mkfile. */
export async function putObject(
  emu: TestEmulator,
  bucket: string,
  key: string,
  data: Buffer | string,
): Promise<{ hash: string }> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const up = new UploadClient({ uploadUrl: emu.uploadUrl });
  try {
    const token = emu.token({ scope: `${bucket}:${key}`, overwrite: 1 });
    const batch = randomUUID();
    const ctxs: string[] = [];
    if (bytes.length > 0) {
      const blk = await up.mkblk({ token, blockSize: bytes.length, blockOrder: 0, batch, chunk: bytes });
      ctxs.push(blk.ctx);
    }
    const r = await up.mkfile({ token, fileSize: bytes.length, batch, ctxs, key });
    return { hash: r.hash };
  } finally {
    up.close();
  }
}

export function mgrClient(emu: TestEmulator): MgrClient {
  return new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
}

const TERMINAL_TASK = new Set([3, 5, 6]);

/**
 * Polls the task until its code is terminal — 3, 5 or 6; only 5 or 6 with `notified` (a
 * task with a notifyURL passes through 3 on its way to 4) — or `until` says so, and returns
 * every distinct top-level and item code seen, in order, with the last status.
 */
export async function waitTask(
  mgr: MgrClient,
  id: string,
  opts: { notified?: boolean; until?: (s: FmgrTaskStatus) => boolean; intervalMs?: number; timeoutMs?: number } = {},
): Promise<{ codes: number[]; itemCodes: number[][]; status: FmgrTaskStatus }> {
  const until =
    opts.until ?? ((s: FmgrTaskStatus) => (opts.notified ? s.code === 5 || s.code === 6 : TERMINAL_TASK.has(s.code)));
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  const codes: number[] = [];
  const itemCodes: number[][] = [];
  for (;;) {
    const s = await mgr.fmgrStatus(id);
    if (codes[codes.length - 1] !== s.code) codes.push(s.code);
    s.items.forEach((it, i) => {
      const seen = (itemCodes[i] ??= []);
      if (seen[seen.length - 1] !== it.code) seen.push(it.code);
    });
    if (until(s)) return { codes, itemCodes, status: s };
    if (Date.now() > deadline)
      throw new Error(`task ${id} still at code ${s.code} after the wait: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 3));
  }
}

/** Polls the job until code 2 or 3 and notifyResult is not 1; returns the codes seen. */
export async function waitJob(
  mgr: MgrClient,
  jobId: string,
  timeoutMs = 20_000,
): Promise<{ codes: number[]; notifyResults: number[]; job: VcaJob }> {
  const deadline = Date.now() + timeoutMs;
  const codes: number[] = [];
  const notifyResults: number[] = [];
  for (;;) {
    const job = await mgr.vcaSearch(jobId);
    if (codes[codes.length - 1] !== job.code) codes.push(job.code);
    if (notifyResults[notifyResults.length - 1] !== job.notifyResult) notifyResults.push(job.notifyResult);
    if (job.code !== 1 && job.notifyResult !== 1) return { codes, notifyResults, job };
    if (Date.now() > deadline) throw new Error(`job ${jobId} not finished after the wait: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 3));
  }
}

export interface ReceivedNotification {
  path: string;
  contentType: string | undefined;
  /** Whether the Authorization header verified against the emulator's keys and the full URL. */
  signed: boolean;
  raw: Buffer;
  /** The decoded JSON: Base64 text for Fmgr, plain JSON for VCA. */
  json: unknown;
  /** The status this receiver answered. */
  answered: number;
}

export interface Receiver {
  url(path: string): string;
  received: ReceivedNotification[];
  /** Statuses to answer, in order; 200 once the list is used up. */
  answers: number[];
  /** How long the receiver holds each request before answering (keeps "notifying" observable). */
  holdMs: number;
  close(): Promise<void>;
}

/** A notification receiver on 127.0.0.1 that verifies every request's signature. */
export async function startReceiver(emu: TestEmulator): Promise<Receiver> {
  const received: ReceivedNotification[] = [];
  const answers: number[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const fullUrl = `${base}${req.url ?? '/'}`;
      const signed = verifyNotification(
        req.headers.authorization,
        emu.config.accessKey,
        emu.config.secretKey,
        fullUrl,
        raw,
      );
      const text = raw.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text.startsWith('{') ? text : urlsafeB64DecodeText(text));
      } catch {
        json = undefined;
      }
      const answered = answers.shift() ?? 200;
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], signed, raw, json, answered });
      const reply = () => res.writeHead(answered).end();
      if (rx.holdMs > 0) setTimeout(reply, rx.holdMs);
      else reply();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rx: Receiver = {
    url: (p) => `${base}${p}`,
    received,
    answers,
    holdMs: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return rx;
}

/** Waits until `cond` holds (checked every few ms), failing after timeoutMs. */
export async function eventually(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
