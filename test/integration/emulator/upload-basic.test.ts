import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UploadClient, MgrClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;
const BLOCK = 4 * MiB;

describe('emulator: chunked upload through the protocol client', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  let mgr: MgrClient;
  beforeEach(async () => {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    mgr = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
  });
  afterEach(async () => {
    up.close();
    mgr.close();
    await emu.close();
  });

  it('uploads several blocks of several chunks, blocks in parallel; bytes and etag match', async () => {
    const size = 2 * BLOCK + 1234567;
    const data = randomBytes(size);
    const key = 'dir/several blocks.bin';
    const token = emu.token({ scope: `${emu.bucket}:${key}` });
    const batch = randomUUID();
    const chunkSize = 1 * MiB + 17; // chunks do not divide the block
    const blockCount = Math.ceil(size / BLOCK);
    const ctxs = await Promise.all(
      Array.from({ length: blockCount }, async (_, order) => {
        const block = data.subarray(order * BLOCK, Math.min(size, (order + 1) * BLOCK));
        let r = await up.mkblk({
          token,
          blockSize: block.length,
          blockOrder: order,
          batch,
          chunk: block.subarray(0, chunkSize),
        });
        expect(r.offset).toBe(Math.min(chunkSize, block.length));
        while (r.offset < block.length) {
          const chunk = block.subarray(r.offset, r.offset + chunkSize);
          r = await up.bput({ token, ctx: r.ctx, offset: r.offset, batch, chunk });
        }
        return r.ctx;
      }),
    );
    const result = await up.mkfile({ token, fileSize: size, batch, ctxs, mimeType: 'application/x-test' });
    expect(result.key).toBe(key);
    expect(result.hash).toBe(etagOfBuffer(data));
    const dl = await mgr.download(emu.objectUrl(emu.bucket, key));
    expect(dl.status).toBe(200);
    expect(dl.headers['content-type']).toBe('application/x-test');
    expect(Buffer.compare(dl.body, data)).toBe(0);
    expect(emu.blockCount()).toBe(0);
  });
});
