import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const BLOCK = 4 * 1024 * 1024;

async function status(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return { status: e.status, message: e.serviceMessage };
    throw e;
  }
  throw new Error('expected the call to fail');
}

describe('emulator: a ctx is valid only for the chunk that directly follows it', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  let token: string;
  const data = randomBytes(BLOCK);
  beforeAll(async () => {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    token = emu.token({ scope: `${emu.bucket}:ctx.bin` });
  });
  afterAll(async () => {
    up.close();
    await emu.close();
  });

  it('replaying a used ctx is 401, and the block continues with the current ctx', async () => {
    const batch = randomUUID();
    const a = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, 1000) });
    const b = await up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk: data.subarray(1000, 2000) });
    const replay = await status(up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk: data.subarray(1000, 2000) }));
    expect(replay.status).toBe(401);
    expect(replay.message).toMatch(/already used/);
    const c = await up.bput({ token, ctx: b.ctx, offset: 2000, batch, chunk: data.subarray(2000) });
    expect(c.offset).toBe(BLOCK);
    const done = await up.mkfile({ token, fileSize: BLOCK, batch, ctxs: [c.ctx] });
    expect(done.hash).toBe(etagOfBuffer(data));
  });

  it('a wrong offset, another batch, a made-up or modified ctx are each 401', async () => {
    const batch = randomUUID();
    const a = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, 1000) });
    expect(
      (await status(up.bput({ token, ctx: a.ctx, offset: 999, batch, chunk: data.subarray(999, 2000) }))).status,
    ).toBe(401);
    const other = await status(
      up.bput({ token, ctx: a.ctx, offset: 1000, batch: randomUUID(), chunk: data.subarray(1000, 2000) }),
    );
    expect(other).toMatchObject({ status: 401, message: expect.stringMatching(/another UploadBatch/) });
    expect(
      (await status(up.bput({ token, ctx: 'made-up-ctx', offset: 1000, batch, chunk: data.subarray(1000, 2000) })))
        .status,
    ).toBe(401);
    const flipped = a.ctx.slice(0, 10) + (a.ctx[10] === 'A' ? 'B' : 'A') + a.ctx.slice(11);
    expect(
      (await status(up.bput({ token, ctx: flipped, offset: 1000, batch, chunk: data.subarray(1000, 2000) }))).status,
    ).toBe(401);
    // The block is untouched by all of that: the real ctx still works.
    const b = await up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk: data.subarray(1000, 2000) });
    expect(b.offset).toBe(2000);
  });

  it('a ctx of another block does not continue this one', async () => {
    const batch = randomUUID();
    const b0 = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, 100) });
    const b1 = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 1, batch, chunk: data.subarray(0, 500) });
    // b0's ctx at b1's offset: wrong offset for that ctx.
    expect(
      (await status(up.bput({ token, ctx: b0.ctx, offset: 500, batch, chunk: data.subarray(500, 600) }))).status,
    ).toBe(401);
    expect(b1.offset).toBe(500);
  });

  it('two requests with the same ctx at once: one succeeds, the other is 401', async () => {
    const batch = randomUUID();
    const a = await up.mkblk({ token, blockSize: BLOCK, blockOrder: 0, batch, chunk: data.subarray(0, 1000) });
    const chunk = data.subarray(1000, 1000 + 2 * 1024 * 1024);
    const results = await Promise.allSettled(
      [0, 1].map(() => up.bput({ token, ctx: a.ctx, offset: 1000, batch, chunk })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect((failed[0]!.reason as ServiceError).status).toBe(401);
  });

  it('a chunk past the end of the block is refused (400) before its body is read', async () => {
    const batch = randomUUID();
    const a = await up.mkblk({ token, blockSize: 2000, blockOrder: 0, batch, chunk: data.subarray(0, 1500) });
    const r = await status(up.bput({ token, ctx: a.ctx, offset: 1500, batch, chunk: data.subarray(0, 501) }));
    expect(r).toMatchObject({ status: 400, message: expect.stringMatching(/past the end of the block/) });
    const full = await up.bput({ token, ctx: a.ctx, offset: 1500, batch, chunk: data.subarray(1500, 2000) });
    // A complete block takes no more chunks.
    expect(
      (await status(up.bput({ token, ctx: full.ctx, offset: 2000, batch, chunk: data.subarray(0, 1) }))).status,
    ).toBe(401);
  });
});
