/**
 * The service's official SDKs as rows of the latency section (issue 19), driven against the
 * same emulator as Blocklift, at the same latency, in the same run:
 * - the browser SDK `wcs-js-sdk` 1.0.12 (devDependencies) in Chromium (playwright-core, the
 *   Chromium of bin/test-browser.mjs), served and driven as in
 *   test/integration/emulator/sdk-interop.test.ts: a page of a loopback server of ours loads
 *   the SDK's dist build and the files as Blobs, and times `wcsUpload(...).putFile()` to its
 *   onComplete. Its settings: `concurrentRequestLimit` and `blockSize` (MiB, a multiple of 4;
 *   one mkblk per block, the whole block in one request); for many small files, how many
 *   uploads the page runs at once (Chromium opens at most 6 connections per host).
 * - the Node SDK (wcs-nodejs-sdk 3.0.6) is not on the npm registry: `NodeSdkProtocol` sends
 *   what its source sends with its published settings. Its resumable upload reads the file
 *   as a stream and sends one whole block per mkblk, one block at a time (the stream is
 *   paused until the reply), then mkfile; `BlockSize` (default 4 MiB, "a multiple of 4 MiB")
 *   is its one setting for a big file. Its normal upload is one multipart `POST /file/upload`
 *   (token, key, file) per file; it has no concurrency of its own, so how many files are in
 *   flight is the calling program's choice, and the bench tries a few. Its HTTP client keeps
 *   connections alive (agentkeepalive); so does ours here.
 * Every object either client uploads is downloaded from the emulator and its etag compared
 * with the file's (`verify`).
 */
import { readFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { chromiumPath } from '../../bin/test-browser.mjs';
import { EtagHasher } from '../../src-main/protocol/etag';
import { urlsafeB64Encode } from '../../src-main/protocol/base64';
import { multipartBody } from '../../src-main/protocol/multipart';
import { signUploadToken } from '../../src-main/protocol/tokens';

export interface SdkTarget {
  uploadUrl: string;
  downloadBaseUrl: string;
  ak: string;
  sk: string;
  bucket: string;
}

export function tokenFor(t: SdkTarget, key: string): string {
  return signUploadToken(t.ak, t.sk, { scope: `${t.bucket}:${key}`, deadline: Date.now() + 3600_000, overwrite: 1 });
}

/** Downloads the object and compares its etag with `etag`; throws when they differ. */
export async function verify(t: SdkTarget, key: string, etag: string): Promise<void> {
  const url = `${t.downloadBaseUrl}/${encodeURIComponent(t.bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`downloading ${key} answered ${res.status}`);
  const h = new EtagHasher();
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) h.update(piece);
  const got = h.digest();
  if (got !== etag) throw new Error(`${key}: downloaded etag ${got}, the file's is ${etag}`);
}

// ---------------------------------------------------------------------------------------
// The Node SDK's requests

/** What wcs-nodejs-sdk 3.0.6 sends, over one keep-alive agent. */
export class NodeSdkProtocol {
  private readonly agent = new http.Agent({ keepAlive: true });

  constructor(private readonly t: SdkTarget) {}

  close(): void {
    this.agent.destroy();
  }

  /** resumeUploadByPath: one block per mkblk, one at a time, then mkfile. Returns the reply's hash. */
  async resumeUpload(file: string, key: string, blockSize: number): Promise<string> {
    const token = tokenFor(this.t, key);
    const batch = urlsafeB64Encode(`wcs-nodejs-sdk${Date.now()}`);
    const ctxs: string[] = [];
    let size = 0;
    let index = 0;
    // As the SDK: a read stream, its pieces gathered to a block, the stream paused while it is sent.
    const stream = createReadStream(file);
    let pieces: Buffer[] = [];
    let fill = 0;
    for await (const piece of stream as AsyncIterable<Buffer>) {
      pieces.push(piece);
      fill += piece.length;
      size += piece.length;
      while (fill >= blockSize) {
        const all = Buffer.concat(pieces);
        const block = all.subarray(0, blockSize);
        pieces = fill > blockSize ? [all.subarray(blockSize)] : [];
        fill -= blockSize;
        ctxs.push(await this.mkblk(token, batch, key, block, index++));
      }
    }
    if (fill > 0) ctxs.push(await this.mkblk(token, batch, key, Buffer.concat(pieces), index++));
    const reply = await this.post(`/mkfile/${size}`, ctxs.join(','), {
      Authorization: token,
      'Content-Type': 'text/plain',
      UploadBatch: batch,
      Key: urlsafeB64Encode(key),
      MimeType: 'application/octet-stream',
    });
    return String((JSON.parse(reply) as { hash?: string }).hash);
  }

  private async mkblk(token: string, batch: string, key: string, block: Buffer, index: number): Promise<string> {
    const reply = await this.post(`/mkblk/${block.length}/${index}`, block, {
      Authorization: token,
      'Content-Type': 'application/octet-stream',
      UploadBatch: batch,
      Key: urlsafeB64Encode(key),
    });
    return String((JSON.parse(reply) as { ctx?: string }).ctx);
  }

  /** uploadByPath: one multipart form upload (token, key, file). Returns the reply's hash. */
  async formUpload(file: string, key: string): Promise<string> {
    const data = await readFile(file);
    const { contentType, body } = multipartBody(
      [
        ['token', tokenFor(this.t, key)],
        ['key', key],
      ],
      path.basename(file),
      data,
    );
    const reply = await this.post('/file/upload', body, { 'Content-Type': contentType });
    const parsed = JSON.parse(reply) as { hash?: string };
    return String(parsed.hash);
  }

  /**
   * One POST; a connection the server closed while idle (a keep-alive race: "socket hang up",
   * ECONNRESET) is tried again, at most 3 times as the SDK's http.js (`RetryTimes`, default 3).
   */
  private async post(uri: string, body: Buffer | string, headers: Record<string, string>): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.postOnce(uri, body, headers);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (attempt >= 3 || !(code === 'ECONNRESET' || code === 'EPIPE')) throw e;
      }
    }
  }

  private postOnce(uri: string, body: Buffer | string, headers: Record<string, string>): Promise<string> {
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.t.uploadUrl}${uri}`,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...headers, Connection: 'keep-alive', 'Content-Length': data.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`${uri.split('/')[1]} answered ${res.statusCode}: ${text}`));
            else resolve(text);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }
}

/** Runs `fn` over `items`, `limit` at a time. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---------------------------------------------------------------------------------------
// The browser SDK in Chromium

const SDK_DIST = path.resolve('node_modules/wcs-js-sdk/dist/wcs.min.js');

const PAGE = `<!doctype html><meta charset="utf-8"><title>wcs-js-sdk bench</title>
<script src="/wcs.min.js"></script>
<script>
  const blobs = {};
  // Loads /data/<name> once as a Blob (before any timing); with parts, sliced in parts of that size.
  window.load = async (name, partBytes) => {
    const blob = await (await fetch('/data/' + name)).blob();
    blobs[name] = partBytes ? Array.from({ length: Math.ceil(blob.size / partBytes) }, (_, i) => blob.slice(i * partBytes, (i + 1) * partBytes)) : blob;
    return blob.size;
  };
  const one = (blob, name, token, uploadUrl, key, extra) =>
    new Promise((resolve, reject) => {
      const up = wcs.wcsUpload(new File([blob], name), token, uploadUrl, Object.assign({ key }, extra));
      up.onComplete = (res) => resolve(res.data);
      up.onError = (err) => reject(new Error(key + ': ' + JSON.stringify(err)));
      up.putFile();
    });
  // One big file with the SDK's settings; ms from putFile to onComplete.
  window.bigUpload = async (name, token, uploadUrl, key, extra) => {
    const t0 = performance.now();
    const data = await one(blobs[name], name, token, uploadUrl, key, extra);
    return { ms: performance.now() - t0, data };
  };
  // Every part of a loaded file as its own small file, 'inFlight' uploads at once.
  window.smallUploads = async (name, tokens, uploadUrl, keys, inFlight) => {
    const parts = blobs[name];
    let next = 0;
    const t0 = performance.now();
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= parts.length) return;
        // Below one block the SDK sends a form upload; blockSize 4 keeps its default for the check.
        await one(parts[i], 'f' + i, tokens[i], uploadUrl, keys[i], { blockSize: 4 });
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    return { ms: performance.now() - t0 };
  };
</script>`;

export interface BrowserSdk {
  /** Loads a file into the page (once per name); `partBytes` splits it into small files. */
  load(name: string, file: string, partBytes?: number): Promise<void>;
  big(name: string, key: string, concurrentRequestLimit: number, blockMiB: number): Promise<number>;
  small(name: string, keys: string[], inFlight: number): Promise<number>;
  close(): Promise<void>;
}

export async function startBrowserSdk(t: SdkTarget): Promise<BrowserSdk> {
  const sdk = await readFile(SDK_DIST);
  const files = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    const file = p.startsWith('/data/') ? files.get(p.slice('/data/'.length)) : undefined;
    if (p === '/') res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    else if (p === '/wcs.min.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk);
    else if (file) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      createReadStream(file).pipe(res);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // As test/e2e/fixture-page.ts launches it (bin/test-browser.mjs finds it).
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  let page: Page;
  try {
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } catch (e) {
    await browser.close();
    server.close();
    throw e;
  }
  type W = Record<string, (...a: unknown[]) => Promise<unknown>>;
  return {
    async load(name, file, partBytes) {
      files.set(name, file);
      await page.evaluate(([n, p]) => (globalThis as unknown as W).load!(n, p), [name, partBytes ?? 0] as const);
    },
    async big(name, key, concurrentRequestLimit, blockMiB) {
      const r = (await page.evaluate(
        ([n, token, url, k, c, b]) =>
          (globalThis as unknown as W).bigUpload!(n, token, url, k, { concurrentRequestLimit: c, blockSize: b }),
        [name, tokenFor(t, key), t.uploadUrl, key, concurrentRequestLimit, blockMiB] as const,
      )) as { ms: number };
      return r.ms;
    },
    async small(name, keys, inFlight) {
      const tokens = keys.map((k) => tokenFor(t, k));
      const r = (await page.evaluate(
        ([n, tk, url, ks, k]) => (globalThis as unknown as W).smallUploads!(n, tk, url, ks, k),
        [name, tokens, t.uploadUrl, keys, inFlight] as const,
      )) as { ms: number };
      return r.ms;
    },
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
