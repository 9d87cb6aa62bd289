/**
 * Block files written with O_DIRECT (and without, BLOCKLIFT_EMULATOR_NO_DIRECT_IO=1) hold
 * exactly the bytes sent: chunks at unaligned offsets, bodies ending mid-sector, a body
 * cut in the middle of its third MiB and sent again with the same ctx.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;

/** Sends the head and `part` of a bput body that claims `declared` bytes, then cuts the connection. */
function cutBput(emu: TestEmulator, path: string, headers: Record<string, string>, part: Buffer, declared: number) {
  return new Promise<void>((resolve) => {
    const req = http.request(`${emu.uploadUrl}${path}`, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'Content-Length': declared },
    });
    req.on('error', () => resolve()); // the cut is the point
    req.write(part, () => {
      req.destroy();
      resolve();
    });
  });
}

async function upload(emu: TestEmulator, key: string, cut: boolean): Promise<void> {
  const data = randomBytes(16 * MiB + MiB + 3);
  const token = emu.token({ scope: `local:${key}` });
  const batch = randomUUID();
  const up = new UploadClient({ uploadUrl: emu.uploadUrl });
  const mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
  try {
    // Block 0: a chunk ending mid-sector, then one starting at that unaligned offset.
    const a = await up.mkblk({ token, blockSize: 8 * MiB, blockOrder: 0, batch, chunk: data.subarray(0, 4 * MiB + 5) });
    const a2 = await up.bput({
      token,
      ctx: a.ctx,
      offset: a.offset,
      batch,
      chunk: data.subarray(4 * MiB + 5, 8 * MiB),
    });
    // Block 1: its first 2 MiB, then (maybe) a body cut after 2.5 of its 4 MiB, then the same ctx again.
    const b = await up.mkblk({
      token,
      blockSize: 8 * MiB,
      blockOrder: 1,
      batch,
      chunk: data.subarray(8 * MiB, 10 * MiB),
    });
    const rest = data.subarray(10 * MiB, 14 * MiB);
    if (cut) {
      const headers = { Authorization: `UpToken ${token}`, UploadBatch: batch };
      await cutBput(emu, `/bput/${b.ctx}/${b.offset}`, headers, rest.subarray(0, 2.5 * MiB), rest.length);
    }
    // Until the emulator has seen the cut connection end, the block is in use by it (401).
    let b2 = await up.bput({ token, ctx: b.ctx, offset: b.offset, batch, chunk: rest }).catch((e: unknown) => e);
    for (let i = 0; b2 instanceof ServiceError && b2.status === 401 && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 100));
      b2 = await up.bput({ token, ctx: b.ctx, offset: b.offset, batch, chunk: rest }).catch((e: unknown) => e);
    }
    if (b2 instanceof Error) throw b2;
    const { ctx, offset } = b2 as { ctx: string; offset: number };
    expect(offset).toBe(6 * MiB);
    const b3 = await up.bput({
      token,
      ctx,
      offset,
      batch,
      chunk: data.subarray(14 * MiB, 16 * MiB),
    });
    const c = await up.mkblk({ token, blockSize: MiB + 3, blockOrder: 2, batch, chunk: data.subarray(16 * MiB) });
    const done = await up.mkfile({ token, fileSize: data.length, batch, ctxs: [a2.ctx, b3.ctx, c.ctx] });
    expect(done.body.hash).toBe(etagOfBuffer(data));
    const got = await mgr.download(emu.objectUrl('local', key));
    expect(got.body.equals(data)).toBe(true);
  } finally {
    up.close();
    mgr.close();
  }
}

describe('emulator: block files written directly', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    delete process.env.BLOCKLIFT_EMULATOR_NO_DIRECT_IO;
    await emu?.close();
    emu = undefined;
  });

  it('hold exactly the bytes sent, with a body cut mid-way and sent again', async () => {
    emu = await startTestEmulator();
    await upload(emu, 'direct.bin', true);
  });

  it('the same with direct I/O turned off', async () => {
    process.env.BLOCKLIFT_EMULATOR_NO_DIRECT_IO = '1';
    emu = await startTestEmulator();
    await upload(emu, 'buffered.bin', true);
  });
});
