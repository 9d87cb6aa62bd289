/**
 * `POST /file/upload`, the form upload the official SDKs use: the same policy checks and
 * reply as mkfile, fields in any order, bounded fields, clear JSON errors. Spoken to through
 * the protocol client (formUpload) and with hand-built multipart bodies.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { fopCommand } from '../../../src-main/protocol/fops';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;
const DAY_MS = 86_400_000;

type Part = [name: string, value: string] | [name: string, value: Buffer, fileName: string];

/** A multipart body built by hand, parts in the order given. */
function multipart(parts: Part[]): { type: string; body: Buffer } {
  const boundary = `xx${randomBytes(8).toString('hex')}`;
  const pieces: Buffer[] = [];
  for (const [name, value, fileName] of parts) {
    const disposition =
      fileName === undefined
        ? `form-data; name="${name}"`
        : `form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: application/octet-stream`;
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`), Buffer.from(value));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(pieces) };
}

function postForm(url: string, type: string, body: Buffer): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/file/upload`,
      { method: 'POST', agent: false, headers: { 'Content-Type': type, 'Content-Length': body.length } },
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

async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return { status: e.status, message: e.serviceMessage };
    throw e;
  }
  throw new Error('expected the call to fail');
}

describe('form upload (POST /file/upload)', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  beforeAll(async () => {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
  });
  afterAll(async () => {
    up.close();
    await emu.close();
  });

  it('stores the file and answers like mkfile: returnBody with fname, mimeType and x: variables', async () => {
    const data = randomBytes(5 * MiB + 17);
    const token = emu.token({
      returnBody: '{"name":$(fname),"size":$(fsize),"type":$(mimeType),"who":$(x:who)}',
    });
    const r = await up.formUpload({
      token,
      data,
      key: 'forms/a.bin',
      fileName: 'a.bin',
      mimeType: 'image/png',
      deadlineDays: 3,
      vars: { who: 'sdk' },
    });
    expect(r.hash).toBe(etagOfBuffer(data));
    expect(r.body).toEqual({
      name: 'a.bin',
      size: String(data.length),
      type: 'image/png',
      who: 'sdk',
      key: 'forms/a.bin',
      hash: etagOfBuffer(data),
    });
    const obj = emu.objects.stat('local', 'forms/a.bin')!;
    expect(obj).toMatchObject({ size: data.length, mimeType: 'image/png' });
    expect(obj.expiresAt).toBe(obj.putTime + 3 * DAY_MS);
    const got = Buffer.from(await (await fetch(emu.objectUrl('local', 'forms/a.bin'))).arrayBuffer());
    expect(got.equals(data)).toBe(true);
  });

  it('takes the file before the token (as the browser SDK sends it); the scope key wins over the key field', async () => {
    const data = randomBytes(1000);
    const { type, body } = multipart([
      ['file', data, 'blob'],
      ['token', emu.token({ scope: 'local:from-scope' })],
      ['key', 'from-field'],
    ]);
    const r = await postForm(emu.uploadUrl, type, body);
    expect(r).toEqual({ status: 200, json: { key: 'from-scope', hash: etagOfBuffer(data) } });
    expect(emu.objects.stat('local', 'from-field')).toBeUndefined();
  });

  it('keeps mkfile’s rules: insertOnly (406), fsizeLimit (413), expired or bad token (401), no key (400)', async () => {
    const data = randomBytes(100);
    await up.formUpload({ token: emu.token(), data, key: 'once' });
    expect(await failure(up.formUpload({ token: emu.token(), data, key: 'once' }))).toMatchObject({ status: 406 });
    const again = await up.formUpload({ token: emu.token({ overwrite: 1 }), data: Buffer.from('new'), key: 'once' });
    expect(again.hash).toBe(etagOfBuffer(Buffer.from('new')));
    expect(await failure(up.formUpload({ token: emu.token({ fsizeLimit: 99 }), data, key: 'big' }))).toMatchObject({
      status: 413,
      message: expect.stringMatching(/fsizeLimit/),
    });
    const expired = emu.token({ deadline: emu.clock.now() - 1000 });
    expect(await failure(up.formUpload({ token: expired, data, key: 'late' }))).toMatchObject({
      status: 401,
      message: expect.stringMatching(/expired/),
    });
    expect(await failure(up.formUpload({ token: 'a:b:c', data, key: 'bad' }))).toMatchObject({ status: 401 });
    expect(await failure(up.formUpload({ token: emu.token(), data }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/no key/),
    });
    for (const key of ['big', 'late', 'bad']) expect(emu.objects.stat('local', key)).toBeUndefined();
  });

  it('persistentOps become an Fmgr task and callbackUrl gets the rendered callbackBody', async () => {
    const persistentOps = fopCommand({ op: 'copy', srcBucket: 'local', srcKey: 'po', bucket: 'local', key: 'po-2' });
    const data = randomBytes(300);
    const r = await up.formUpload({ token: emu.token({ persistentOps }), data, key: 'po' });
    expect(typeof r.body.persistentId).toBe('string');
    expect(emu.fmgr.status(r.body.persistentId as string)).toBeDefined();

    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push(text);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"from":"callback"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
      const token = emu.token({ callbackUrl: url, callbackBody: 'k=$(key)&v=$(x:tag)' });
      const cb = await up.formUpload({ token, data, key: 'cb', vars: { tag: 't1' }, callback: true });
      expect(cb.body).toEqual({ from: 'callback' });
      expect(bodies).toEqual(['k=cb&v=t1']);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('answers clear JSON errors for a malformed form', async () => {
    const token = emu.token();
    const cases: Array<[string, { type: string; body: Buffer }, number, RegExp]> = [
      [
        'no file',
        multipart([
          ['token', token],
          ['key', 'k'],
        ]),
        400,
        /no file field/,
      ],
      [
        'no token',
        multipart([
          ['key', 'k'],
          ['file', Buffer.from('x'), 'x'],
        ]),
        401,
        /no token/,
      ],
      [
        'two files',
        multipart([
          ['token', token],
          ['file', Buffer.from('x'), 'x'],
          ['file', Buffer.from('y'), 'y'],
        ]),
        400,
        /one file/,
      ],
      [
        'file in another field',
        multipart([
          ['token', token],
          ['upload', Buffer.from('x'), 'x'],
        ]),
        400,
        /"file"/,
      ],
      [
        'a field too long',
        multipart([
          ['token', token],
          ['x:big', 'v'.repeat(70_000)],
        ]),
        400,
        /longer than/,
      ],
      [
        'a repeated field',
        multipart([
          ['token', token],
          ['key', 'a'],
          ['key', 'b'],
        ]),
        400,
        /twice/,
      ],
      ['not multipart', { type: 'application/octet-stream', body: Buffer.from('x') }, 400, /multipart/],
      ['a broken body', { type: 'multipart/form-data; boundary=zz', body: Buffer.from('--zz\r\nbroken') }, 400, /./],
    ];
    for (const [name, form, status, message] of cases) {
      const r = await postForm(emu.uploadUrl, form.type, form.body);
      expect({ name, status: r.status, code: r.json.code }).toEqual({ name, status, code: String(status) });
      expect(r.json.message).toMatch(message);
    }
  });
});
