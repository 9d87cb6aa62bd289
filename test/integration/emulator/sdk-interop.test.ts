/**
 * The service's official browser SDK (wcs-js-sdk, pinned in devDependencies) uploading to
 * the emulator from Debian's Chromium: a multi-block file through mkblk/mkfile and a small
 * file through the form upload, each checked by its etag. The page and the SDK's dist build
 * come from a loopback server of this test; the emulator is another origin (CORS).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { launchChromium, type Chromium } from '../../e2e/chromium';

const SDK_DIST = path.resolve('node_modules/wcs-js-sdk/dist/wcs.min.js');
const MiB = 1024 * 1024;

const PAGE = `<!doctype html><meta charset="utf-8"><title>wcs-js-sdk interop</title>
<script src="/wcs.min.js"></script>
<script>
  // Uploads /data/<name> with the SDK; resolves with what onComplete or onError got.
  window.sdkUpload = async (name, token, uploadUrl, key) => {
    const blob = await (await fetch('/data/' + name)).blob();
    const file = new File([blob], name);
    return new Promise((resolve) => {
      const up = wcs.wcsUpload(file, token, uploadUrl, { key, concurrentRequestLimit: 2 });
      up.onComplete = (res) => resolve({ ok: true, kind: up.getUploadType(), data: res.data });
      up.onError = (err) => resolve({ ok: false, kind: up.getUploadType(), error: err });
      up.putFile();
    });
  };
</script>`;

interface SdkResult {
  ok: boolean;
  kind: string;
  data?: unknown;
  error?: unknown;
}

/** The loopback server of the test page, the SDK build and the files to upload. */
async function startPageServer(files: Map<string, Buffer>): Promise<{ url: string; close(): Promise<void> }> {
  const sdk = readFileSync(SDK_DIST);
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    const file = p.startsWith('/data/') ? files.get(p.slice('/data/'.length)) : undefined;
    if (p === '/') res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    else if (p === '/wcs.min.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk);
    else if (file) res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(file);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the official browser SDK (wcs-js-sdk) against the emulator', () => {
  const files = new Map([
    ['multi.bin', randomBytes(9 * MiB + 12_345)],
    ['small.bin', randomBytes(100_000)],
  ]);
  let emu: TestEmulator;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let browser: Chromium;
  let page: Page;

  beforeAll(async () => {
    emu = await startTestEmulator();
    pages = await startPageServer(files);
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(pages.url);
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await emu?.close();
  });

  const upload = (name: string, key: string): Promise<SdkResult> =>
    page.evaluate(
      ([n, token, url, k]) =>
        (globalThis as unknown as { sdkUpload(...a: string[]): Promise<SdkResult> }).sdkUpload(n!, token!, url!, k!),
      [name, emu.token({ scope: `${emu.bucket}:${key}` }), emu.uploadUrl, key],
    );

  it('uploads a 3-block file through mkblk and mkfile', async () => {
    const data = files.get('multi.bin')!;
    const r = await upload('multi.bin', 'sdk/multi.bin');
    expect(r).toMatchObject({ ok: true, kind: 'uploadChunk' });
    expect(r.data).toEqual({ key: 'sdk/multi.bin', hash: etagOfBuffer(data) });
    expect(emu.objects.stat(emu.bucket, 'sdk/multi.bin')).toMatchObject({
      size: data.length,
      hash: etagOfBuffer(data),
    });
  });

  it('uploads a small file through the form upload', async () => {
    const data = files.get('small.bin')!;
    const r = await upload('small.bin', 'sdk/small.bin');
    expect(r).toMatchObject({ ok: true, kind: 'uploadDirect' });
    expect(r.data).toEqual({ key: 'sdk/small.bin', hash: etagOfBuffer(data) });
    const got = Buffer.from(await (await fetch(emu.objectUrl(emu.bucket, 'sdk/small.bin'))).arrayBuffer());
    expect(got.equals(data)).toBe(true);
  });
});
