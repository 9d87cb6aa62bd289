import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { ServiceError, errorFromReply } from '../../../src-main/protocol/errors';
import { urlsafeB64DecodeText } from '../../../src-main/protocol/base64';
import { multipartParts } from '../../../src-main/protocol/multipart';

// A loopback server whose reply each test scripts: it lets the client meet garbage,
// wrong checksums, silence and resets, which a faithful emulator never sends on its own.
type Script = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;
let script: Script = (_q, _b, res) => res.end();
let seen: { url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      script(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const json = (res: http.ServerResponse, status: number, obj: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(obj));
};

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a failure');
}

describe('UploadClient', () => {
  it('sends mkblk with the protocol headers and checks the crc32', async () => {
    seen = [];
    const chunk = Buffer.from('hello chunk');
    script = (_q, body, res) => json(res, 200, { ctx: 'c1', checksum: 'x', crc32: crc32(body), offset: body.length });
    const c = new UploadClient({ uploadUrl: base });
    const r = await c.mkblk({ token: 'ak:s:p', blockSize: 4194304, blockOrder: 0, batch: 'b-1', key: 'a/b', chunk });
    expect(r).toMatchObject({ ctx: 'c1', offset: chunk.length });
    expect(seen[0]!.url).toBe('/mkblk/4194304/0');
    expect(seen[0]!.headers.authorization).toBe('ak:s:p');
    expect(seen[0]!.headers.uploadbatch).toBe('b-1');
    expect(seen[0]!.headers['content-type']).toBe('application/octet-stream');
    expect(urlsafeB64DecodeText(String(seen[0]!.headers.key))).toBe('a/b');
    c.close();
  });

  it('accepts a crc32 of the block so far, and refuses one that matches nothing', async () => {
    const before = Buffer.from('first part ');
    const chunk = Buffer.from('second part');
    const c = new UploadClient({ uploadUrl: base });
    script = (_q, body, res) => json(res, 200, { ctx: 'c2', crc32: crc32(body, crc32(before)), offset: 22 });
    await expect(
      c.bput({ token: 't:s:p', ctx: 'c1', offset: 11, batch: 'b', chunk, crcBefore: crc32(before) }),
    ).resolves.toMatchObject({ ctx: 'c2' });
    script = (_q, _b, res) => json(res, 200, { ctx: 'c2', crc32: 12345, offset: 22 });
    const e = await failure(c.bput({ token: 't:s:p', ctx: 'c1', offset: 11, batch: 'b', chunk }));
    expect(e.kind).toBe('bad-reply');
    expect(e.code).toBe('crc32-mismatch');
    c.close();
  });

  it('turns service errors, garbage and missing fields into typed errors', async () => {
    const c = new UploadClient({ uploadUrl: base });
    const args = { token: 't:s:p', blockSize: 4, blockOrder: 0, batch: 'b', chunk: Buffer.from('abcd') };
    script = (_q, _b, res) => json(res, 401, { code: '401', message: 'invalid ctx' }, { 'X-Reqid': 'rid-9' });
    let e = await failure(c.mkblk(args));
    expect(e).toMatchObject({
      kind: 'service',
      status: 401,
      code: '401',
      serviceMessage: 'invalid ctx',
      requestId: 'rid-9',
      endpoint: 'mkblk',
    });
    script = (_q, _b, res) => {
      res.writeHead(502);
      res.end('<html>Bad Gateway</html>');
    };
    e = await failure(c.mkblk(args));
    expect(e.status).toBe(502);
    expect(e.serviceMessage).toMatch(/not the service's JSON error.*Bad Gateway/);
    script = (_q, _b, res) => {
      res.writeHead(200);
      res.end('not json');
    };
    e = await failure(c.mkblk(args));
    expect(e.kind).toBe('bad-reply');
    script = (_q, _b, res) => json(res, 200, { ctx: 'c', offset: 4 });
    e = await failure(c.mkblk(args));
    expect(e.message).toMatch(/crc32/);
    c.close();
  });

  it('builds the mkfile path, headers and body', async () => {
    seen = [];
    script = (_q, _b, res) => json(res, 200, { hash: 'Fh', key: 'k', name: 'n' });
    const c = new UploadClient({ uploadUrl: `${base}/prefix/` });
    const r = await c.mkfile({
      token: 't:s:p',
      fileSize: 10,
      batch: 'b',
      ctxs: ['a', 'b'],
      mimeType: 'video/mp4',
      deadlineDays: 3,
      vars: { user: 'ü', 'x:two': '2' },
    });
    expect(r).toEqual({ hash: 'Fh', key: 'k', body: { hash: 'Fh', key: 'k', name: 'n' } });
    const s = seen[0]!;
    expect(s.url).toBe('/prefix/mkfile/10/x:user/w7w=/x:two/Mg==');
    expect(s.body.toString()).toBe('a,b');
    expect(s.headers.mimetype).toBe('video/mp4');
    expect(s.headers.deadline).toBe('3');
    await expect(
      c.mkfile({ token: 't', fileSize: 1, batch: 'b', ctxs: [], vars: { 'bad name': 'v' } }),
    ).rejects.toThrow(/custom variable/);
    c.close();
  });

  it('times out on silence and stops on abort', async () => {
    script = () => undefined; // never answers
    const c = new UploadClient({ uploadUrl: base, timeoutMs: 200 });
    const args = { token: 't:s:p', blockSize: 4, blockOrder: 0, batch: 'b', chunk: Buffer.from('abcd') };
    expect((await failure(c.mkblk(args))).kind).toBe('timeout');
    const ac = new AbortController();
    const p = c.mkblk({ ...args, signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    expect((await failure(p)).kind).toBe('aborted');
    c.close();
  });

  it('cuts a reply that drips forever, a byte at a time faster than the idle timeout', async () => {
    const timers: NodeJS.Timeout[] = [];
    script = (_q, _b, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 50);
      timers.push(t);
    };
    const c = new UploadClient({ uploadUrl: base, timeoutMs: 200 });
    const args = { token: 't:s:p', blockSize: 4, blockOrder: 0, batch: 'b', chunk: Buffer.from('abcd') };
    const e = await failure(c.mkblk(args));
    for (const t of timers) clearInterval(t);
    expect(e.kind).toBe('timeout');
    expect(e.message).toMatch(/reply did not finish/);
    c.close();
  });

  it('says nothing listens when the port is closed', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const c = new UploadClient({ uploadUrl: `http://127.0.0.1:${port}` });
    const e = await failure(
      c.mkblk({ token: 't', blockSize: 4, blockOrder: 0, batch: 'b', chunk: Buffer.from('abcd') }),
    );
    expect(e.kind).toBe('network');
    expect(e.message).toMatch(/nothing listens/);
    c.close();
  });

  it("sends a form upload's multipart body in parts: the file's own buffer between head and tail, one Content-Length", async () => {
    seen = [];
    script = (_q, _b, res) => json(res, 200, { hash: 'h1', key: 'k/1' });
    const data = Buffer.from('file bytes \r\n--not-a-boundary');
    const parts = multipartParts([['token', 't']], 'f.bin', data).parts;
    // The file part is the caller's buffer itself: no copy of the file's size per request.
    expect(parts[1]).toBe(data);
    const c = new UploadClient({ uploadUrl: base });
    const r = await c.formUpload({ token: 'ak:s:p', data, key: 'k/1', fileName: 'f.bin' });
    expect(r).toMatchObject({ hash: 'h1', key: 'k/1' });
    const { headers, body } = seen[0]!;
    const boundary = /boundary=(\S+)/.exec(headers['content-type']!)![1]!;
    expect(Number(headers['content-length'])).toBe(body.length);
    const text = body.toString('latin1');
    expect(text.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="token"\r\n\r\nak:s:p\r\n`)).toBe(
      true,
    );
    expect(
      text.endsWith(
        `\r\nContent-Type: application/octet-stream\r\n\r\n${data.toString('latin1')}\r\n--${boundary}--\r\n`,
      ),
    ).toBe(true);
    expect(text).toContain('name="file"; filename="f.bin"');
    c.close();
  });
});

describe('MgrClient', () => {
  it('signs submissions and parses status with numeric strings', async () => {
    seen = [];
    script = (req, _b, res) =>
      req.url?.startsWith('/fmgr/status')
        ? json(res, 200, {
            id: 'p1',
            code: 0,
            desc: 'pending',
            items: [{ cmd: 'delete/x', code: '3', desc: 'ok', fsize: '12' }],
          })
        : json(res, 200, { persistentId: 'p1' });
    const c = new MgrClient({ mgrUrl: base, accessKey: 'ak', secretKey: 'sk' });
    const { persistentId } = await c.fmgrSubmit('delete', [{ op: 'delete', bucket: 'b', key: 'k' }]);
    expect(persistentId).toBe('p1');
    expect(seen[0]!.headers.authorization).toMatch(/^ak:.{56}$/);
    const st = await c.fmgrStatus('p1');
    expect(st.items[0]).toMatchObject({ code: 3, fsize: 12 });
    await expect(c.fmgrSubmit('copy', [{ op: 'delete', bucket: 'b', key: 'k' }])).rejects.toThrow(/cannot carry/);
    c.close();
  });

  it('validates VCA replies', async () => {
    const c = new MgrClient({ mgrUrl: base, accessKey: 'ak', secretKey: 'sk' });
    // A type the spec does not list is kept as sent (refusing it would lose the job's labels).
    script = (_q, _b, res) =>
      json(res, 200, {
        jobId: 'j',
        code: 3,
        desc: '',
        notifyResult: 0,
        results: [{ type: 'weird', result: [{ attribute: 'x', confidence: 0.5 }] }],
      });
    expect((await c.vcaSearch('j')).results).toEqual([
      { type: 'weird', result: [{ attribute: 'x', confidence: 0.5 }] },
    ]);
    // A job still analysing or failed may come without `results`: none.
    for (const code of [1, 2]) {
      script = (_q, _b, res) => json(res, 200, { jobId: 'j', code, desc: 'd' });
      expect(await c.vcaSearch('j')).toEqual({ jobId: 'j', code, desc: 'd', notifyResult: 0, results: [] });
    }
    script = (_q, _b, res) => json(res, 200, { jobId: 'j', code: 3, desc: '', results: [{ type: '', result: [] }] });
    expect((await failure(c.vcaSearch('j'))).message).toMatch(/empty type/);
    script = (_q, _b, res) => json(res, 200, { jobId: 'j', code: 3, desc: '', results: 'nope' });
    expect(await failure(c.vcaSearch('j'))).toMatchObject({ kind: 'bad-reply' });
    script = (_q, _b, res) => json(res, 401, { code: '401', message: 'JobId Not Found' });
    expect(await failure(c.vcaSearch('j'))).toMatchObject({ status: 401, serviceMessage: 'JobId Not Found' });
    c.close();
  });
});

describe('errorFromReply', () => {
  it('reads {code, message} and {error}', () => {
    expect(errorFromReply('fmgr-status', 404, Buffer.from('{"code":404,"message":"no such task"}'))).toMatchObject({
      code: 404,
      serviceMessage: 'no such task',
    });
    expect(errorFromReply('mkfile', 400, Buffer.from('{"error":"bad"}'))).toMatchObject({ serviceMessage: 'bad' });
    expect(errorFromReply('mkfile', 500, Buffer.alloc(0)).serviceMessage).toBe('empty error reply');
  });
});
