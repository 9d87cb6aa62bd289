/**
 * The emulator spoken to without the project's protocol code: plain node:http and node:net
 * requests built by hand, tokens and etags computed here with node:crypto, so the emulator
 * is not checked only by the client it is meant to check.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const AK = 'raw-ak';
const SK = 'raw-sk';
const MiB = 1024 * 1024;

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

/** AK:b64(hex(HMAC-SHA1(SK, b64(policy)))):b64(policy), per protocol-notes. */
function token(policy: Record<string, unknown> | string, sk = SK): string {
  const encoded = b64(typeof policy === 'string' ? policy : JSON.stringify(policy));
  return `${AK}:${b64(createHmac('sha1', sk).update(encoded).digest('hex'))}:${encoded}`;
}

/** The etag of protocol-notes, computed directly. */
function etag(data: Buffer): string {
  const UNIT = 4 * MiB;
  if (data.length <= UNIT) return b64(Buffer.concat([Buffer.of(0x16), createHash('sha1').update(data).digest()]));
  const outer = createHash('sha1');
  for (let i = 0; i < data.length; i += UNIT)
    outer.update(
      createHash('sha1')
        .update(data.subarray(i, i + UNIT))
        .digest(),
    );
  return b64(Buffer.concat([Buffer.of(0x96), outer.digest()]));
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body?: Buffer | string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined) h['Content-Length'] = Buffer.byteLength(body);
    const req = http.request(`${base}${path}`, { method, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON; tests that care look at text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes raw bytes on a fresh TCP connection; resolves with everything read until the server closes or `waitMs` passes. */
function rawExchange(
  port: number,
  payload: Buffer | string,
  opts: { endAfterWrite?: boolean; waitMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, opts.waitMs ?? 1000);
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(Buffer.concat(chunks).toString('latin1'));
      else reject(e);
    });
    sock.write(payload);
    if (opts.endAfterWrite) sock.end();
  });
}

describe('emulator over raw HTTP (no project protocol code)', () => {
  let emu: TestEmulator;
  let base: string;
  const policy = (extra: Record<string, unknown> = {}) => ({
    scope: 'raw',
    deadline: Date.now() + 3_600_000,
    ...extra,
  });
  const up = (tok: string, batch: string, type = 'application/octet-stream') => ({
    Authorization: tok,
    'Content-Type': type,
    UploadBatch: batch,
  });

  beforeAll(async () => {
    emu = await startTestEmulator({ accessKey: AK, secretKey: SK, buckets: ['raw'] });
    base = emu.uploadUrl;
  });
  afterAll(async () => {
    await emu.close();
  });

  it('a two-block upload in chunks: replies carry the body CRC-32, MD5 and offset; mkfile answers the etag; the download matches', async () => {
    const data = randomBytes(4 * MiB + 300_000);
    const tok = token(policy({ scope: 'raw:dir/raw.bin' }));
    const batch = randomUUID();
    const ctxs: string[] = [];
    for (const [order, start, size] of [
      [0, 0, 4 * MiB],
      [1, 4 * MiB, 300_000],
    ] as const) {
      const block = data.subarray(start, start + size);
      const first = block.subarray(0, 1 * MiB);
      let r = await send(base, 'POST', `/mkblk/${size}/${order}`, up(tok, batch), first);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        crc32: crc32(first),
        checksum: createHash('md5').update(first).digest('hex'),
        offset: Math.min(size, MiB),
      });
      while ((r.json.offset as number) < size) {
        const offset = r.json.offset as number;
        const chunk = block.subarray(offset, offset + MiB);
        r = await send(base, 'POST', `/bput/${r.json.ctx as string}/${offset}`, up(tok, batch), chunk);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({
          crc32: crc32(chunk),
          checksum: createHash('md5').update(chunk).digest('hex'),
          offset: offset + chunk.length,
        });
      }
      ctxs.push(r.json.ctx as string);
    }
    const mk = await send(
      base,
      'POST',
      `/mkfile/${data.length}/x:tag/${b64('raw test')}`,
      up(tok, batch, 'text/plain;charset=UTF-8'),
      ctxs.join(','),
    );
    expect(mk.status).toBe(200);
    expect(mk.json).toEqual({ key: 'dir/raw.bin', hash: etag(data) });
    expect(mk.headers['x-reqid']).toBeTruthy();
    const dl = await new Promise<Buffer>((resolve, reject) => {
      http
        .get(`${base}/dl/raw/dir/raw.bin`, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
        .on('error', reject);
    });
    expect(dl.equals(data)).toBe(true);
  });

  it('accepts "UpToken <token>"; 401 JSON {code:"401"} for a wrong secret and an expired deadline (ms)', async () => {
    const batch = randomUUID();
    expect((await send(base, 'POST', '/mkblk/5/0', up(`UpToken ${token(policy())}`, batch), 'hello')).status).toBe(200);
    const wrong = await send(base, 'POST', '/mkblk/5/0', up(token(policy(), 'nope'), batch), 'hello');
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ code: '401', message: expect.stringMatching(/signature/) });
    const expired = await send(
      base,
      'POST',
      '/mkblk/5/0',
      up(token(policy({ deadline: Date.now() - 1000 })), batch),
      'hello',
    );
    expect(expired.json).toMatchObject({ code: '401', message: expect.stringMatching(/expired/) });
    // A deadline in seconds is long past when read as milliseconds.
    const seconds = await send(
      base,
      'POST',
      '/mkblk/5/0',
      up(token(policy({ deadline: Math.floor(Date.now() / 1000) + 3600 })), batch),
      'hello',
    );
    expect(seconds.status).toBe(401);
  });

  it('a ctx replayed or used at another offset is 401', async () => {
    const tok = token(policy());
    const batch = randomUUID();
    const a = await send(base, 'POST', '/mkblk/30/0', up(tok, batch), Buffer.alloc(10));
    const ctx = a.json.ctx as string;
    expect((await send(base, 'POST', `/bput/${ctx}/11`, up(tok, batch), Buffer.alloc(10))).status).toBe(401);
    expect((await send(base, 'POST', `/bput/${ctx}/10`, up(tok, batch), Buffer.alloc(10))).status).toBe(200);
    expect((await send(base, 'POST', `/bput/${ctx}/10`, up(tok, batch), Buffer.alloc(10))).status).toBe(401);
  });

  it('malformed Base64 (key, x: var), a NUL in the key, a malformed JSON policy: 400 JSON', async () => {
    const batch = randomUUID();
    const tok = token(policy());
    const a = await send(base, 'POST', '/mkblk/3/0', up(tok, batch), 'abc');
    const ctx = a.json.ctx as string;
    const mk = (path: string, t = tok) => send(base, 'POST', path, up(t, batch, 'text/plain'), ctx);
    expect((await mk('/mkfile/3/key/*bad*')).json).toMatchObject({
      code: '400',
      message: expect.stringMatching(/Base64/),
    });
    expect((await mk(`/mkfile/3/key/${b64('k')}/x:v/%%%`)).status).toBe(400);
    expect((await mk(`/mkfile/3/key/${b64('a\u0000b')}`)).json).toMatchObject({
      code: '400',
      message: expect.stringMatching(/NUL/),
    });
    expect((await mk(`/mkfile/3/key/${b64('k')}/y:v/${b64('1')}`)).status).toBe(400);
    expect((await mk('/mkfile/3', token('{"scope":"raw",'))).json).toMatchObject({
      code: '400',
      message: expect.stringMatching(/policy/),
    });
    expect((await mk(`/mkfile/3/key/${b64('fine')}`)).status).toBe(200);
  });

  it('a huge Content-Length is refused before any body is sent', async () => {
    const tok = token(policy());
    const head = [
      'POST /mkblk/4194304/0 HTTP/1.1',
      `Host: 127.0.0.1:${emu.port}`,
      `Authorization: ${tok}`,
      'Content-Type: application/octet-stream',
      `UploadBatch: ${randomUUID()}`,
      'Content-Length: 1000000000000',
      '',
      '',
    ].join('\r\n');
    const reply = await rawExchange(emu.port, head, { waitMs: 2000 });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(reply).toMatch(/past the end of the block/);
  });

  it('a body shorter than its Content-Length leaves the block unchanged, and the server keeps serving', async () => {
    const tok = token(policy());
    const batch = randomUUID();
    const a = await send(base, 'POST', '/mkblk/100/0', up(tok, batch), Buffer.alloc(10, 1));
    const ctx = a.json.ctx as string;
    const head = [
      `POST /bput/${ctx}/10 HTTP/1.1`,
      `Host: 127.0.0.1:${emu.port}`,
      `Authorization: ${tok}`,
      'Content-Type: application/octet-stream',
      `UploadBatch: ${batch}`,
      'Content-Length: 50',
      '',
      '',
    ].join('\r\n');
    await rawExchange(emu.port, Buffer.concat([Buffer.from(head), Buffer.alloc(20, 2)]), {
      endAfterWrite: true,
      waitMs: 500,
    });
    // The ctx is still the current one: the cut chunk was not committed. Until the server
    // has seen the cut connection end, the block is still in use by it (401, "two requests
    // at once"); a consumed ctx would stay 401, so a short wait cannot hide that.
    const rest = Buffer.alloc(90, 3);
    let r = await send(base, 'POST', `/bput/${ctx}/10`, up(tok, batch), rest);
    for (let i = 0; r.status === 401 && i < 40; i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await send(base, 'POST', `/bput/${ctx}/10`, up(tok, batch), rest);
    }
    expect(r.status).toBe(200);
    expect(r.json.offset).toBe(100);
    const mk = await send(
      base,
      'POST',
      `/mkfile/100/key/${b64('short-body')}`,
      up(tok, batch, 'text/plain'),
      r.json.ctx as string,
    );
    expect(mk.json.hash).toBe(etag(Buffer.concat([Buffer.alloc(10, 1), rest])));
  });

  it('garbage that is not HTTP gets a 400 and the server stays up', async () => {
    const reply = await rawExchange(emu.port, 'THIS IS NOT HTTP\r\n\r\n', { waitMs: 1000 });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(
      (
        await send(base, 'OPTIONS', '/mkblk/4/0', {
          Origin: 'http://x.example',
          'Access-Control-Request-Method': 'POST',
        })
      ).status,
    ).toBe(204);
  });

  it('unknown paths are 404 JSON', async () => {
    const r = await send(base, 'POST', '/nothing/here', {}, '');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ code: '404' });
  });
});
