import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import { signNotification } from '../../../src-main/protocol/tokens';
import { createNotificationHandler } from '../../../src-main/tasks/notify-receiver';
import { makeWorld, ACCOUNT_ID, type World } from './setup';

// The receiver mounted the way a server behind a path-stripping proxy would mount it, and
// the edges of its contract: methods, paths, sizes, and ids it did not know.
let w: World | undefined;
let server: http.Server | undefined;
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = undefined;
  }
  await w?.close();
  w = undefined;
});

async function mount(publicBaseUrl: string | undefined, maxBodyBytes?: number): Promise<string> {
  const handler = createNotificationHandler({
    publicBaseUrl: () => publicBaseUrl,
    accountByAccessKey: (ak) =>
      ak === w!.emu.config.accessKey ? { accountId: ACCOUNT_ID, secretKey: w!.emu.config.secretKey } : undefined,
    fmgr: w!.fmgr,
    vca: w!.vca,
    maxBodyBytes,
  });
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function send(
  url: string,
  body: string,
  opts: { method?: string; auth?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? 'POST', headers: opts.auth ? { Authorization: opts.auth } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sign = (url: string, body: string) =>
  signNotification(w!.emu.config.accessKey, w!.emu.config.secretKey, url, body);

describe('notification receiver', () => {
  it('verifies against the public URL when a proxy strips the base path, and records an id it did not know', async () => {
    w = await makeWorld();
    const local = await mount('https://blocklift.example.com/hooks/');
    const publicUrl = 'https://blocklift.example.com/hooks/notify/fmgr';
    const body = urlsafeB64Encode(
      JSON.stringify({
        id: 'pid-from-elsewhere',
        code: 3,
        desc: 'notification succeeded',
        separate: '0',
        items: [{ cmd: 'delete/x', code: 4, desc: '', key: 'k', hash: 'h', fsize: 12, url: 'http://dl/k' }],
      }),
    );
    // Signed for the public URL, arriving at the stripped local path.
    const r = await send(`${local}/notify/fmgr`, body, { auth: sign(publicUrl, body) });
    expect(r.status).toBe(200);
    const t = w.fmgr.find(ACCOUNT_ID, 'pid-from-elsewhere')!;
    expect(t).toMatchObject({ origin: 'notification', code: 3, codeSource: 'notify', state: 'notification succeeded' });
    expect(t.items[0]).toMatchObject({
      state: 'success, notifying',
      key: 'k',
      hash: 'h',
      fsize: 12,
      url: 'http://dl/k',
    });
    // Arriving with the prefix still on works too; signed for the local URL it does not.
    expect((await send(`${local}/hooks/notify/fmgr`, body, { auth: sign(publicUrl, body) })).status).toBe(200);
    expect((await send(`${local}/notify/fmgr`, body, { auth: sign(`${local}/notify/fmgr`, body) })).status).toBe(401);
  });

  it('answers 404, 405, 413 and 400 for what is not a notification, and changes nothing', async () => {
    w = await makeWorld();
    const local = await mount('http://127.0.0.1:1/bl', 1024);
    const url = 'http://127.0.0.1:1/bl/notify/vca';
    expect(
      (await send(`${local}/bl/elsewhere`, '{}', { auth: sign('http://127.0.0.1:1/bl/elsewhere', '{}') })).status,
    ).toBe(404);
    expect((await send(`${local}/bl/notify/vca`, '', { method: 'GET' })).status).toBe(405);
    const big = 'x'.repeat(2048);
    expect((await send(`${local}/bl/notify/vca`, big, { auth: sign(url, big) })).status).toBe(413);
    // (A result type the spec does not list is kept, not refused: a label without confidence is the wrong shape.)
    const wrongShape = JSON.stringify({
      jobId: 'j',
      code: 3,
      desc: '',
      results: [{ type: 'smell', result: [{ attribute: 'a' }] }],
    });
    const bad = await send(`${local}/bl/notify/vca`, wrongShape, { auth: sign(url, wrongShape) });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/confidence/);
    const notJson = 'hello';
    expect((await send(`${local}/bl/notify/vca`, notJson, { auth: sign(url, notJson) })).status).toBe(400);
    expect(w.vca.list()).toEqual([]);
    const ok = JSON.stringify({
      jobId: 'j-1',
      code: 3,
      desc: '',
      results: [{ type: 'entity', result: [{ attribute: 'cat', confidence: 0.8 }] }],
    });
    expect((await send(`${local}/bl/notify/vca`, ok, { auth: sign(url, ok) })).status).toBe(200);
    expect(w.vca.find(ACCOUNT_ID, 'j-1')).toMatchObject({
      origin: 'notification',
      code: 3,
      results: [{ type: 'entity', labels: [{ attribute: 'cat', confidence: 0.8 }] }],
    });
  });

  it('is off (404) without a public base URL', async () => {
    w = await makeWorld();
    const local = await mount(undefined);
    const r = await send(`${local}/notify/fmgr`, 'x', { auth: 'a:b' });
    expect(r.status).toBe(404);
    expect(r.text).toMatch(/no public base URL/);
  });
});
