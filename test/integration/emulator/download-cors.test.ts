import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

function request(
  url: string,
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('emulator: downloads and CORS', () => {
  let emu: TestEmulator;
  let mgr: MgrClient;
  const data = randomBytes(10_000);
  const key = 'docs/a b/ü.bin';
  beforeAll(async () => {
    emu = await startTestEmulator();
    mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
    emu.objects.putBuffer('local', key, data, { mimeType: 'application/x-thing' });
    emu.objects.putBuffer('local', 'a/../b', Buffer.from('dots'), {});
  });
  afterAll(async () => {
    mgr.close();
    await emu.close();
  });

  it('GET returns the bytes with type, length, etag; HEAD returns headers only', async () => {
    const url = emu.objectUrl('local', key);
    const r = await mgr.download(url);
    expect(r.status).toBe(200);
    expect(r.body.equals(data)).toBe(true);
    expect(r.headers).toMatchObject({
      'content-type': 'application/x-thing',
      'content-length': '10000',
      etag: `"${etagOfBuffer(data)}"`,
      'accept-ranges': 'bytes',
    });
    const head = await request(url, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('10000');
    expect(head.body.length).toBe(0);
  });

  it('a key with ".." segments has a URL that no parser folds', async () => {
    const r = await mgr.download(emu.objectUrl('local', 'a/../b'));
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('dots');
  });

  it('Range: a-b, a-, -n give 206 with Content-Range; past the end is 416', async () => {
    const url = emu.objectUrl('local', key);
    const r1 = await mgr.download(url, { range: [100, 199] });
    expect(r1.status).toBe(206);
    expect(r1.headers['content-range']).toBe('bytes 100-199/10000');
    expect(r1.body.equals(data.subarray(100, 200))).toBe(true);
    const r2 = await request(url, 'GET', { Range: 'bytes=9990-' });
    expect(r2.status).toBe(206);
    expect(r2.body.equals(data.subarray(9990))).toBe(true);
    const r3 = await request(url, 'GET', { Range: 'bytes=-5' });
    expect(r3.body.equals(data.subarray(9995))).toBe(true);
    const r4 = await request(url, 'GET', { Range: 'bytes=9999-20000' });
    expect(r4.status).toBe(206);
    expect(r4.body.length).toBe(1);
    const r5 = await request(url, 'GET', { Range: 'bytes=10000-10005' });
    expect(r5.status).toBe(416);
    expect(r5.headers['content-range']).toBe('bytes */10000');
  });

  it('404 JSON for a missing object or bucket; 400 for malformed percent-encoding', async () => {
    const r = await request(emu.objectUrl('local', 'nope'), 'GET');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString())).toMatchObject({ code: '404', message: expect.stringMatching(/nope/) });
    expect((await request(`${emu.downloadBaseUrl}/nobucket/x`, 'GET')).status).toBe(404);
    expect((await request(`${emu.downloadBaseUrl}/local/%ZZ`, 'GET')).status).toBe(400);
  });

  it('answers CORS preflight on upload and management paths, and sets CORS headers on replies (errors too)', async () => {
    for (const path of ['/mkblk/4194304/0', '/bput/abc/0', '/mkfile/10', '/fmgr/copy', '/v1/vca']) {
      const r = await request(`${emu.uploadUrl}${path}`, 'OPTIONS', {
        Origin: 'http://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,uploadbatch,key',
      });
      expect(r.status).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('http://app.example');
      const allowed = (r.headers['access-control-allow-headers'] ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'uploadbatch', 'key', 'mimetype', 'deadline'])
        expect(allowed).toContain(h);
      expect(r.headers['access-control-allow-methods']).toContain('POST');
    }
    const err = await request(`${emu.uploadUrl}/mkblk/4194304/0`, 'POST', { Origin: 'http://app.example' });
    expect(err.status).toBe(401);
    expect(err.headers['access-control-allow-origin']).toBe('http://app.example');
    expect(err.headers['access-control-expose-headers']).toContain('X-Reqid');
    expect(err.headers['x-reqid']).toMatch(/^[0-9a-f]{16}$/);
  });

  it('every reply has an X-Reqid; admin routes have no CORS and need the token', async () => {
    const r = await request(`${emu.mgrUrl}/fmgr/status?persistentId=none`, 'GET');
    expect(r.headers['x-reqid']).toBeDefined();
    const admin = await request(`${emu.adminUrl}/faults`, 'GET', { Origin: 'http://evil.example' });
    expect(admin.status).toBe(401);
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
    const ok = await request(`${emu.adminUrl}/faults`, 'GET', { Authorization: `Bearer ${emu.adminToken}` });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString())).toMatchObject({ config: {}, events: [] });
  });
});
