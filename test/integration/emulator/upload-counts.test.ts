import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UploadCounts } from '../../../src-main/emulator/upload-counts';
import { UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const BLOCK = 4 * 1024 * 1024;

describe('emulator: what mkblk and bput took in (GET /admin/counts)', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  let token: string;
  beforeAll(async () => {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    token = emu.token({ scope: `${emu.bucket}:counts.bin` });
  });
  afterAll(async () => {
    up.close();
    await emu.close();
  });

  const viaAdmin = async (bearer = emu.adminToken): Promise<{ status: number; body: unknown }> => {
    const r = await fetch(`${emu.adminUrl}/counts`, { headers: { Authorization: `Bearer ${bearer}` } });
    return { status: r.status, body: await r.json() };
  };
  const refused = async (p: Promise<unknown>): Promise<number> => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ServiceError) return e.status;
      throw e;
    }
    throw new Error('expected the call to be refused');
  };

  it('counts the mkblk and bput it accepted and their body bytes, not the requests it refused', async () => {
    expect(await viaAdmin()).toEqual({ status: 200, body: { mkblk: 0, bput: 0, chunkBytes: 0, spentCtxBlocks: 0 } });
    expect((await viaAdmin('wrong')).status).toBe(401);
    const data = randomBytes(3000);
    const batch = randomUUID();
    const a = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, 1000) });
    await up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk: data.subarray(1000, 1500) });
    expect(emu.uploadCounts()).toEqual({ mkblk: 1, bput: 1, chunkBytes: 1500, spentCtxBlocks: 0 });
    // Refused before their bodies were read: a spent ctx (401; its block counted once, however
    // often it comes back), a made-up ctx (401), a chunk past the end of its block (400).
    for (let i = 0; i < 2; i++)
      expect(await refused(up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk: data.subarray(1000, 2000) }))).toBe(
        401,
      );
    expect(
      await refused(up.bput({ token, ctx: 'made-up', offset: 1000, batch, chunk: data.subarray(1000, 2000) })),
    ).toBe(401);
    expect(await refused(up.mkblk({ token, blockSize: 100, blockOrder: 1, batch, chunk: data.subarray(0, 200) }))).toBe(
      400,
    );
    const after: UploadCounts = { mkblk: 1, bput: 1, chunkBytes: 1500, spentCtxBlocks: 1 };
    expect(emu.uploadCounts()).toEqual(after);
    expect(await viaAdmin()).toEqual({ status: 200, body: after });
  });

  it('counts a body cut off as far as it came', async () => {
    const before = emu.uploadCounts();
    const blocksBefore = emu.blockCount();
    const url = new URL(emu.uploadUrl);
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: `/mkblk/${BLOCK}/0`,
      headers: {
        Authorization: token,
        UploadBatch: randomUUID(),
        'Content-Type': 'application/octet-stream',
        'Content-Length': 100_000,
      },
    });
    req.on('error', () => undefined); // destroyed below
    await new Promise<void>((resolve, reject) => req.write(randomBytes(30_000), (e) => (e ? reject(e) : resolve())));
    await vi.waitFor(() => expect(emu.uploadCounts().chunkBytes).toBe(before.chunkBytes + 30_000), {
      timeout: 10_000,
      interval: 10,
    });
    req.destroy();
    expect(emu.uploadCounts()).toEqual({ ...before, mkblk: before.mkblk + 1, chunkBytes: before.chunkBytes + 30_000 });
    // The cut block is dropped (the client sends the chunk again with a new mkblk).
    await vi.waitFor(() => expect(emu.blockCount()).toBe(blocksBefore), { timeout: 10_000, interval: 10 });
  });
});
