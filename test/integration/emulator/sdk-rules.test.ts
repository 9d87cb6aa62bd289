/**
 * What the service's official SDKs send and the real service accepts: no Content-Type on
 * a block body, `?chunk=i&chunks=n` on block URLs, any non-empty UploadBatch, two uploads
 * sharing one batch id. The emulator stays strict otherwise: a wrong explicit Content-Type,
 * a bad token and a reused ctx are still refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;

interface Reply {
  status: number;
  json: Record<string, unknown>;
}

/** One raw POST with exactly these headers (Content-Length added; no Content-Type unless given). */
function post(base: string, path: string, headers: Record<string, string>, body: Buffer | string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text || '{}') as Record<string, unknown> });
        });
      },
    );
    req.on('error', reject);
    // A Buffer, so node writes the headers as latin1 (with a string body it would write them in its encoding).
    req.end(Buffer.from(body));
  });
}

describe('SDK interop rules of the chunked upload', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  const auth = (key?: string) => `UpToken ${emu.token({ scope: key ? `local:${key}` : 'local', overwrite: 1 })}`;

  it('a block body without Content-Type is octet-stream; ?chunk=&chunks= on block URLs is ignored', async () => {
    const data = randomBytes(6 * 1024);
    const h = { Authorization: auth('no-type'), UploadBatch: 'sdk-batch-1' };
    const first = await post(emu.uploadUrl, '/mkblk/6144/0?chunk=0&chunks=1', h, data.subarray(0, 2048));
    expect(first).toMatchObject({
      status: 200,
      json: { offset: 2048, checksum: createHash('md5').update(data.subarray(0, 2048)).digest('hex') },
    });
    const second = await post(
      emu.uploadUrl,
      `/bput/${first.json.ctx as string}/2048?chunk=0&chunks=1`,
      h,
      data.subarray(2048),
    );
    expect(second).toMatchObject({ status: 200, json: { offset: 6144 } });
    const made = await post(
      emu.uploadUrl,
      '/mkfile/6144',
      { ...h, 'Content-Type': 'text/plain;charset=UTF-8' },
      second.json.ctx as string,
    );
    expect(made).toMatchObject({ status: 200, json: { key: 'no-type', hash: etagOfBuffer(data) } });
  });

  it('still refuses a wrong explicit Content-Type, a bad token and a reused ctx', async () => {
    const h = { Authorization: auth(), UploadBatch: 'sdk-batch-2' };
    const wrong = await post(emu.uploadUrl, '/mkblk/8/0', { ...h, 'Content-Type': 'text/plain' }, 'abcd');
    expect(wrong).toMatchObject({ status: 400, json: { message: expect.stringMatching(/Content-Type/) } });
    const badToken = await post(emu.uploadUrl, '/mkblk/8/0', { ...h, Authorization: 'UpToken a:b:c' }, 'abcd');
    expect(badToken.status).toBe(401);
    const ok = await post(emu.uploadUrl, '/mkblk/8/0', h, 'abcd');
    expect(ok.status).toBe(200);
    expect((await post(emu.uploadUrl, `/bput/${ok.json.ctx as string}/4`, h, 'efgh')).status).toBe(200);
    const reused = await post(emu.uploadUrl, `/bput/${ok.json.ctx as string}/4`, h, 'efgh');
    expect(reused).toMatchObject({ status: 401, json: { message: expect.stringMatching(/ctx/) } });
  });

  it.each([
    ['a long one', 'x'.repeat(300)],
    ['one with spaces and punctuation', 'my upload #1 (retry)'],
    ['non-ASCII bytes', Buffer.from('lot-ü-7', 'utf8').toString('latin1')],
  ])('accepts any non-empty UploadBatch: %s', async (_name, batch) => {
    const data = randomBytes(1000);
    const h = { Authorization: auth('any-batch'), UploadBatch: batch };
    const blk = await post(emu.uploadUrl, '/mkblk/1000/0', h, data);
    expect(blk.status).toBe(200);
    const made = await post(
      emu.uploadUrl,
      '/mkfile/1000',
      { ...h, 'Content-Type': 'text/plain' },
      blk.json.ctx as string,
    );
    expect(made).toMatchObject({ status: 200, json: { hash: etagOfBuffer(data) } });
    expect((await post(emu.uploadUrl, '/mkblk/1000/0', { Authorization: auth() }, data)).status).toBe(400);
  });

  it('two uploads sharing one batch id, blocks interleaved, each get their own bytes', async () => {
    const batch = 'shared-batch';
    const a = randomBytes(8 * MiB + 1000);
    const b = randomBytes(8 * MiB + 3000);
    const blocksOf = (d: Buffer) => [d.subarray(0, 4 * MiB), d.subarray(4 * MiB, 8 * MiB), d.subarray(8 * MiB)];
    const ha = { Authorization: auth('shared-a'), UploadBatch: batch };
    const hb = { Authorization: auth('shared-b'), UploadBatch: batch };
    const ctxA: string[] = [];
    const ctxB: string[] = [];
    const put = async (h: typeof ha, ctxs: string[], d: Buffer, i: number) => {
      const block = blocksOf(d)[i]!;
      const r = await post(emu.uploadUrl, `/mkblk/${block.length}/${i}?chunk=${i}&chunks=3`, h, block);
      expect(r.status).toBe(200);
      ctxs[i] = r.json.ctx as string;
    };
    await put(ha, ctxA, a, 0);
    await put(hb, ctxB, b, 0);
    await put(hb, ctxB, b, 1);
    await put(ha, ctxA, a, 2);
    await put(ha, ctxA, a, 1);
    await put(hb, ctxB, b, 2);
    const mk = (h: typeof ha, d: Buffer, ctxs: string[]) =>
      post(emu.uploadUrl, `/mkfile/${d.length}`, { ...h, 'Content-Type': 'text/plain' }, ctxs.join(','));
    expect(await mk(hb, b, ctxB)).toMatchObject({ status: 200, json: { key: 'shared-b', hash: etagOfBuffer(b) } });
    expect(await mk(ha, a, ctxA)).toMatchObject({ status: 200, json: { key: 'shared-a', hash: etagOfBuffer(a) } });
    // A ctx list mixing the two uploads' blocks is refused, not merged.
    const gone = await mk(ha, a, [ctxB[0]!, ctxA[1]!, ctxA[2]!]);
    expect(gone.status).toBe(412);
    for (const [key, d] of [
      ['shared-a', a],
      ['shared-b', b],
    ] as const) {
      const res = await fetch(emu.objectUrl('local', key));
      expect(Buffer.from(await res.arrayBuffer()).equals(d)).toBe(true);
    }
  });
});
