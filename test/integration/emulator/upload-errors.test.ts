import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import { signUploadToken } from '../../../src-main/protocol/tokens';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const BLOCK = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;

async function failure(p: Promise<unknown>): Promise<{ status: number; code: unknown; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return { status: e.status, code: e.code, message: e.serviceMessage };
    throw e;
  }
  throw new Error('expected the call to fail');
}

/** One raw POST; resolves with status and parsed JSON body. */
function post(
  url: string,
  headers: Record<string, string | number>,
  body: Buffer | string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'Content-Length': Buffer.byteLength(body), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('emulator: upload error rows', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  let mgr: MgrClient;
  beforeAll(async () => {
    emu = await startTestEmulator({ buckets: ['local', 'other'] });
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
  });
  afterAll(async () => {
    up.close();
    mgr.close();
    await emu.close();
  });

  /** A small one-block upload, returning the last ctx. */
  async function oneBlock(token: string, batch: string, data: Buffer): Promise<string> {
    return (await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch, chunk: data })).ctx;
  }

  it('accepts the bare token and the "UpToken " prefix', async () => {
    const token = emu.token();
    const a = await up.mkblk({ token, blockSize: 10, blockOrder: 0, batch: randomUUID(), chunk: Buffer.alloc(10) });
    const b = await up.mkblk({
      token: `UpToken ${token}`,
      blockSize: 10,
      blockOrder: 0,
      batch: randomUUID(),
      chunk: Buffer.alloc(10),
    });
    expect(a.offset).toBe(10);
    expect(b.offset).toBe(10);
  });

  it('401 for a wrong access key, a wrong signature, an expired token, a missing token; each message says which', async () => {
    const args = { blockSize: 10, blockOrder: 0, batch: randomUUID(), chunk: Buffer.alloc(10) };
    const policy = { scope: 'local', deadline: emu.clock.now() + 60_000 };
    const wrongAk = await failure(
      up.mkblk({ ...args, token: signUploadToken('nobody', emu.config.secretKey, policy) }),
    );
    expect(wrongAk).toMatchObject({ status: 401, code: '401', message: expect.stringMatching(/access key/) });
    const wrongSk = await failure(up.mkblk({ ...args, token: signUploadToken(emu.config.accessKey, 'wrong', policy) }));
    expect(wrongSk).toMatchObject({ status: 401, message: expect.stringMatching(/signature/) });
    const expired = await failure(up.mkblk({ ...args, token: emu.token({ deadline: emu.clock.now() - 1 }) }));
    expect(expired).toMatchObject({ status: 401, message: expect.stringMatching(/expired/) });
    expect((await failure(up.mkblk({ ...args, token: 'not-a-token' }))).status).toBe(401);
  });

  it('the deadline is checked against the emulator clock, in milliseconds', async () => {
    const token = emu.token({ deadline: emu.clock.now() + 60_000 });
    const args = { token, blockSize: 10, blockOrder: 0, chunk: Buffer.alloc(10) };
    await up.mkblk({ ...args, batch: randomUUID() });
    emu.clock.advance(61_000);
    try {
      expect((await failure(up.mkblk({ ...args, batch: randomUUID() }))).status).toBe(401);
    } finally {
      emu.clock.advance(-61_000);
    }
  });

  it('400 for a correctly signed policy that is not JSON, lacks a deadline, or has bad members', async () => {
    const args = { blockSize: 10, blockOrder: 0, batch: randomUUID(), chunk: Buffer.alloc(10) };
    const sign = (text: string) => signUploadToken(emu.config.accessKey, emu.config.secretKey, text);
    expect(await failure(up.mkblk({ ...args, token: sign('{"scope":"local",') }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/JSON/),
    });
    expect((await failure(up.mkblk({ ...args, token: sign('{"scope":"local"}') }))).status).toBe(400);
    expect((await failure(up.mkblk({ ...args, token: sign('[1,2]') }))).status).toBe(400);
    const badOverwrite = sign(JSON.stringify({ scope: 'local', deadline: emu.clock.now() + 60_000, overwrite: 7 }));
    expect((await failure(up.mkblk({ ...args, token: badOverwrite }))).status).toBe(400);
  });

  it('631 for a bucket that does not exist', async () => {
    const r = await failure(
      up.mkblk({
        token: emu.token({ scope: 'nosuch:k' }),
        blockSize: 10,
        blockOrder: 0,
        batch: randomUUID(),
        chunk: Buffer.alloc(10),
      }),
    );
    expect(r).toMatchObject({ status: 631, message: expect.stringMatching(/nosuch/) });
  });

  it('400 without UploadBatch, with a wrong Content-Type, with a malformed Key header; 411 without Content-Length', async () => {
    const token = emu.token();
    const url = `${emu.uploadUrl}/mkblk/10/0`;
    const body = Buffer.alloc(10);
    expect((await post(url, { Authorization: token, 'Content-Type': 'application/octet-stream' }, body)).status).toBe(
      400,
    );
    const wrongType = await post(
      url,
      { Authorization: token, 'Content-Type': 'text/plain', UploadBatch: randomUUID() },
      body,
    );
    expect(wrongType).toMatchObject({
      status: 400,
      json: { code: '400', message: expect.stringMatching(/Content-Type/) },
    });
    const badKey = await post(
      url,
      { Authorization: token, 'Content-Type': 'application/octet-stream', UploadBatch: randomUUID(), Key: '%%%' },
      body,
    );
    expect(badKey.status).toBe(400);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          headers: {
            Authorization: token,
            'Content-Type': 'application/octet-stream',
            UploadBatch: randomUUID(),
            'Transfer-Encoding': 'chunked',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(chunked).toBe(411);
  });

  it('400 for bad path numbers: blockSize 0, non-numeric order, an empty chunk', async () => {
    const token = emu.token();
    expect(
      (await failure(up.mkblk({ token, blockSize: 10, blockOrder: 0, batch: randomUUID(), chunk: Buffer.alloc(0) })))
        .status,
    ).toBe(400);
    const h = { Authorization: token, 'Content-Type': 'application/octet-stream', UploadBatch: randomUUID() };
    expect((await post(`${emu.uploadUrl}/mkblk/0/0`, h, Buffer.alloc(1))).status).toBe(400);
    expect((await post(`${emu.uploadUrl}/mkblk/10/x`, h, Buffer.alloc(1))).status).toBe(400);
    expect((await post(`${emu.uploadUrl}/mkblk/-4/0`, h, Buffer.alloc(1))).status).toBe(400);
  });

  it('key comes from the scope over the Key header over the path', async () => {
    const data = randomBytes(100);
    let batch = randomUUID();
    let token = emu.token({ scope: 'local:from-scope' });
    let ctx = await oneBlock(token, batch, data);
    const path = (key: string) => `${emu.uploadUrl}/mkfile/100/key/${urlsafeB64Encode(key)}`;
    const h = (b: string, extra: Record<string, string> = {}) => ({
      Authorization: token,
      'Content-Type': 'text/plain;charset=UTF-8',
      UploadBatch: b,
      ...extra,
    });
    expect((await post(path('from-path'), h(batch, { Key: urlsafeB64Encode('from-header') }), ctx)).json.key).toBe(
      'from-scope',
    );
    token = emu.token({ scope: 'local' });
    batch = randomUUID();
    ctx = await oneBlock(token, batch, data);
    expect((await post(path('from-path'), h(batch, { Key: urlsafeB64Encode('from-header') }), ctx)).json.key).toBe(
      'from-header',
    );
    batch = randomUUID();
    ctx = await oneBlock(token, batch, data);
    expect((await post(path('from-path'), h(batch), ctx)).json.key).toBe('from-path');
    batch = randomUUID();
    ctx = await oneBlock(token, batch, data);
    const none = await post(`${emu.uploadUrl}/mkfile/100`, h(batch), ctx);
    expect(none).toMatchObject({ status: 400, json: { message: expect.stringMatching(/no key/) } });
  });

  it('406 when the key exists and the policy does not allow overwrite; overwrite: 1 replaces it', async () => {
    const key = 'exists.bin';
    const first = randomBytes(50);
    let token = emu.token({ scope: `local:${key}` });
    let batch = randomUUID();
    await up.mkfile({ token, fileSize: 50, batch, ctxs: [await oneBlock(token, batch, first)] });
    const second = randomBytes(60);
    batch = randomUUID();
    const ctx = await oneBlock(token, batch, second);
    expect((await failure(up.mkfile({ token, fileSize: 60, batch, ctxs: [ctx] }))).status).toBe(406);
    token = emu.token({ scope: `local:${key}`, overwrite: 1 });
    const r = await up.mkfile({ token, fileSize: 60, batch, ctxs: [ctx] });
    expect(r.hash).toBe(etagOfBuffer(second));
    expect((await mgr.download(emu.objectUrl('local', key))).body.equals(second)).toBe(true);
  });

  it('412 for a missing or incomplete block; 400 for out-of-order blocks, a short middle block, or a fileSize too small', async () => {
    const token = emu.token({ scope: 'local:blocks.bin' });
    const batch = randomUUID();
    const data = randomBytes(BLOCK + 100);
    const b0 = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, BLOCK - 1) });
    const b1 = await up.mkblk({ token, blockSize: 100, blockOrder: 1, batch, chunk: data.subarray(BLOCK) });
    const incomplete = await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b0.ctx, b1.ctx] }));
    expect(incomplete).toMatchObject({ status: 412, message: expect.stringMatching(/incomplete/) });
    const b0full = await up.bput({
      token,
      ctx: b0.ctx,
      offset: BLOCK - 1,
      batch,
      chunk: data.subarray(BLOCK - 1, BLOCK),
    });
    expect((await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b1.ctx] }))).status).toBe(412);
    expect((await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b0full.ctx] }))).status).toBe(412);
    expect((await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b1.ctx, b0full.ctx] }))).status).toBe(
      412,
    );
    expect(
      (await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b0full.ctx, b0full.ctx] }))).status,
    ).toBe(400);
    expect((await failure(up.mkfile({ token, fileSize: BLOCK + 99, batch, ctxs: [b0full.ctx, b1.ctx] }))).status).toBe(
      400,
    );
    expect((await failure(up.mkfile({ token, fileSize: 10, batch, ctxs: [] }))).status).toBe(412);
    // A stale ctx (not the block's last) is 401.
    expect((await failure(up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b0.ctx, b1.ctx] }))).status).toBe(
      401,
    );
    const ok = await up.mkfile({ token, fileSize: BLOCK + 100, batch, ctxs: [b0full.ctx, b1.ctx] });
    expect(ok.hash).toBe(etagOfBuffer(data));

    const batch2 = randomUUID();
    const t2 = emu.token({ scope: 'local:short-middle.bin' });
    const s0 = await up.mkblk({
      token: t2,
      blockSize: 100,
      blockOrder: 0,
      batch: batch2,
      chunk: data.subarray(0, 100),
    });
    const s1 = await up.mkblk({
      token: t2,
      blockSize: 100,
      blockOrder: 1,
      batch: batch2,
      chunk: data.subarray(0, 100),
    });
    const shortMiddle = await failure(up.mkfile({ token: t2, fileSize: 200, batch: batch2, ctxs: [s0.ctx, s1.ctx] }));
    expect(shortMiddle).toMatchObject({ status: 400, message: expect.stringMatching(/multiple of 4 MiB/) });
  });

  it('a retried mkfile gets the same reply; a ctx list with a trailing comma is 400', async () => {
    const token = emu.token({ scope: 'local:retry.bin' });
    const batch = randomUUID();
    const data = randomBytes(30);
    const ctx = await oneBlock(token, batch, data);
    const h = { Authorization: token, 'Content-Type': 'text/plain', UploadBatch: batch };
    expect((await post(`${emu.uploadUrl}/mkfile/30`, h, `${ctx},`)).status).toBe(400);
    const a = await up.mkfile({ token, fileSize: 30, batch, ctxs: [ctx] });
    const b = await up.mkfile({ token, fileSize: 30, batch, ctxs: [ctx] });
    expect(b).toEqual(a);
  });

  it('413 when the file is larger than fsizeLimit', async () => {
    const token = emu.token({ scope: 'local:big.bin', fsizeLimit: 99 });
    const batch = randomUUID();
    const ctx = await oneBlock(token, batch, randomBytes(100));
    expect(await failure(up.mkfile({ token, fileSize: 100, batch, ctxs: [ctx] }))).toMatchObject({
      status: 413,
      message: expect.stringMatching(/fsizeLimit/),
    });
  });

  it('renders returnBody with the variables (values as strings, then key and hash), x: vars from the path', async () => {
    const returnBody = 'name=$(fname)&size=$(fsize)&who=$(x:user)&b=$(bucket)&m=$(mimeType)&h=$(hash)&none=$(x:absent)';
    const token = emu.token({ scope: 'local:photos/cat.jpg', returnBody });
    const batch = randomUUID();
    const data = randomBytes(77);
    const ctx = await oneBlock(token, batch, data);
    const r = await up.mkfile({
      token,
      fileSize: 77,
      batch,
      ctxs: [ctx],
      vars: { user: 'ada lovelace' },
      mimeType: 'image/jpeg',
    });
    const hash = etagOfBuffer(data);
    expect(Object.keys(r.body)).toEqual(['name', 'size', 'who', 'b', 'm', 'h', 'none', 'key', 'hash']);
    expect(r.body).toEqual({
      name: 'cat.jpg',
      size: '77',
      who: 'ada lovelace',
      b: 'local',
      m: 'image/jpeg',
      h: hash,
      none: '',
      key: 'photos/cat.jpg',
      hash,
    });
  });

  it('Deadline: the object expires after N days of the emulator clock', async () => {
    const token = emu.token({ scope: 'local:expiring.txt' });
    const batch = randomUUID();
    const ctx = await oneBlock(token, batch, Buffer.from('bye'));
    await up.mkfile({ token, fileSize: 3, batch, ctxs: [ctx], deadlineDays: 2 });
    const url = emu.objectUrl('local', 'expiring.txt');
    expect((await mgr.download(url)).status).toBe(200);
    emu.clock.advance(2 * DAY_MS + 1);
    try {
      expect((await mgr.download(url)).status).toBe(404);
      expect(emu.sweepNow().objects).toBeGreaterThanOrEqual(1);
    } finally {
      emu.clock.advance(-(2 * DAY_MS + 1));
    }
    expect((await mgr.download(url)).status).toBe(404);
  });

  it('keys with ../ and NUL: ../ is just text (stored safely), NUL is refused', async () => {
    const key = '../../etc/passwd';
    const token = emu.token({ scope: `local:${key}` });
    const batch = randomUUID();
    const data = Buffer.from('not really');
    const r = await up.mkfile({ token, fileSize: data.length, batch, ctxs: [await oneBlock(token, batch, data)] });
    expect(r.key).toBe(key);
    const dl = await mgr.download(emu.objectUrl('local', key));
    expect(dl.body.equals(data)).toBe(true);
    const nul = emu.token({ scope: 'local:a\u0000b' });
    const b2 = randomUUID();
    const ctx2 = await oneBlock(nul, b2, data);
    expect(await failure(up.mkfile({ token: nul, fileSize: data.length, batch: b2, ctxs: [ctx2] }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/NUL/),
    });
  });

  it('an empty file needs no blocks', async () => {
    const token = emu.token({ scope: 'local:empty' });
    const r = await up.mkfile({ token, fileSize: 0, batch: randomUUID(), ctxs: [] });
    expect(r.hash).toBe('Fto5o-5ea0sNMlW_75VgGJCv2AcJ');
    const dl = await mgr.download(emu.objectUrl('local', 'empty'));
    expect(dl).toMatchObject({ status: 200 });
    expect(dl.body.length).toBe(0);
  });
});
