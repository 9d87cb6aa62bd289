/**
 * Keys the download route must take exactly as the path spells them: a trailing slash, a
 * double slash or a key made only of slashes is part of the key, never folded into another
 * object's name.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectFromUrl } from '../../../src-main/emulator/fmgr-urls';
import { objectAccessUrl } from '../../../src-main/tasks/access-url';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const KEYS = ['photos', 'photos/', '/', '//', 'dir/', 'a//b', '/lead', 'dir/sub/'];

/** GET with node:http, so the path reaches the server as written (no URL normalisation here). */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('download keys with trailing, leading and double slashes', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    for (const key of KEYS) emu.objects.putBuffer(emu.bucket, key, Buffer.from(`bytes of <${key}>`), {});
  });
  afterAll(() => emu.close());

  it.each(KEYS)('the object URL of %j serves its own bytes (fetch and raw path)', async (key) => {
    const url = emu.objectUrl(emu.bucket, key);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`bytes of <${key}>`);
    const raw = await get(emu.port, new URL(url).pathname);
    expect(raw).toEqual({ status: 200, body: `bytes of <${key}>` });
  });

  it('takes the path as given: /dl/<bucket>/photos/ is the key "photos/", %2F spells a slash', async () => {
    expect((await get(emu.port, `/dl/${emu.bucket}/photos/`)).body).toBe('bytes of <photos/>');
    expect((await get(emu.port, `/dl/${emu.bucket}/photos%2F`)).body).toBe('bytes of <photos/>');
    expect((await get(emu.port, `/dl/${emu.bucket}//`)).body).toBe('bytes of </>');
    expect((await get(emu.port, `/dl/${emu.bucket}///`)).body).toBe('bytes of <//>');
    expect((await get(emu.port, `/dl/${emu.bucket}/nothing/`)).status).toBe(404);
    expect((await get(emu.port, `/dl/${emu.bucket}/`)).status).toBe(404);
    expect((await get(emu.port, `/dl/${emu.bucket}`)).status).toBe(404);
  });

  it.each(KEYS)('the app’s access URL of %j (download domain + key) serves its own bytes', async (key) => {
    const res = await fetch(objectAccessUrl(`${emu.downloadBaseUrl}/${emu.bucket}`, key));
    expect(await res.text()).toBe(`bytes of <${key}>`);
  });

  it('maps each object URL back to its own key (Fmgr and VCA sources)', () => {
    for (const key of KEYS)
      expect(objectFromUrl(emu, emu.objectUrl(emu.bucket, key))).toEqual({ bucket: emu.bucket, key });
  });
});
