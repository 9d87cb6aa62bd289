import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import { MgrClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { ServiceError } from '../../../src-main/protocol/errors';
import { signManagementToken } from '../../../src-main/protocol/tokens';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

// `GET /stat/<b64 "bucket:key">` as the official SDKs send it (Go BucketManager.Stat, Java
// OperationManager.stat: a management token over "/stat/<entry>\n"), through the real
// server and MgrClient.stat.

let emu: TestEmulator;
let mgr: MgrClient;
beforeAll(async () => {
  emu = await startTestEmulator();
  mgr = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
});
afterAll(async () => {
  mgr.close();
  await emu.close();
});

async function get(path: string, auth?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${emu.mgrUrl}${path}`, { headers: auth ? { Authorization: auth } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('stat', () => {
  it('answers what is stored under a key: hash (the etag), fsize, mimeType, putTime', async () => {
    const data = Buffer.from('stat me');
    emu.objects.putBuffer(emu.bucket, 'dir/a b.txt', data, { mimeType: 'text/plain' });
    const info = await mgr.stat(emu.bucket, 'dir/a b.txt');
    expect(info).toEqual({
      hash: etagOfBuffer(data),
      fsize: data.length,
      mimeType: 'text/plain',
      putTime: emu.objects.stat(emu.bucket, 'dir/a b.txt')!.putTime,
    });
    // The raw reply, signed exactly as the Java SDK's getStatToken does.
    const entry = urlsafeB64Encode(`${emu.bucket}:dir/a b.txt`);
    const raw = await get(
      `/stat/${entry}`,
      signManagementToken(emu.config.accessKey, emu.config.secretKey, `/stat/${entry}`),
    );
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      name: 'dir/a b.txt',
      fsize: data.length,
      hash: etagOfBuffer(data),
      expirationDate: '',
    });
  });

  it('nothing under the key is null (404 "file not exist")', async () => {
    expect(await mgr.stat(emu.bucket, 'no/such/key')).toBeNull();
  });

  it('is as strict as the management endpoints: token required and checked, entry checked, bucket checked', async () => {
    const entry = urlsafeB64Encode(`${emu.bucket}:k`);
    expect((await get(`/stat/${entry}`)).status).toBe(401);
    const wrongSk = signManagementToken(emu.config.accessKey, 'not-the-secret', `/stat/${entry}`);
    expect(await get(`/stat/${entry}`, wrongSk)).toMatchObject({ status: 401, body: { code: '401' } });
    const noKey = urlsafeB64Encode(emu.bucket);
    const signed = (e: string) => signManagementToken(emu.config.accessKey, emu.config.secretKey, `/stat/${e}`);
    expect((await get(`/stat/${noKey}`, signed(noKey))).status).toBe(400);
    expect((await get('/stat/not*b64', signed('not*b64'))).status).toBe(400);
    await expect(mgr.stat('no-such-bucket', 'k')).rejects.toMatchObject({ status: 631, endpoint: 'stat' });
  });

  it('a client without AK/SK cannot ask (no-credentials), and says so', async () => {
    const unsigned = new MgrClient({ mgrUrl: emu.mgrUrl });
    try {
      const e = await unsigned.stat(emu.bucket, 'k').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).code).toBe('no-credentials');
    } finally {
      unsigned.close();
    }
  });
});
