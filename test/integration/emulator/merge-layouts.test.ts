import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import type { BlockContext } from '../../../src-main/protocol/types';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;

/**
 * Blocks of a multiple of 4 MiB are written in place into their batch's assembly file and
 * mkfile takes that file without copying when it can (merge.ts); these cover the layouts
 * where it must not, or only partly can, and check bytes and hash every time.
 */
describe('emulator: mkfile over the block layouts', () => {
  let emu: TestEmulator | undefined;
  let up: UploadClient | undefined;
  let mgr: MgrClient | undefined;
  afterEach(async () => {
    up?.close();
    mgr?.close();
    await emu?.close();
    emu = up = mgr = undefined;
  });

  async function setup(): Promise<{
    put: (key: string, batch: string, data: Buffer, blockSize: number, order: number) => Promise<BlockContext>;
  }> {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
    return {
      put: (key, batch, data, blockSize, order) =>
        up!.mkblk({ token: emu!.token({ scope: `local:${key}` }), blockSize, blockOrder: order, batch, chunk: data }),
    };
  }

  async function finish(key: string, batch: string, data: Buffer, ctxs: BlockContext[]): Promise<void> {
    const done = await up!.mkfile({
      token: emu!.token({ scope: `local:${key}` }),
      fileSize: data.length,
      batch,
      ctxs: ctxs.map((c) => c.ctx),
    });
    expect(done.hash).toBe(etagOfBuffer(data));
    expect((await mgr!.download(emu!.objectUrl('local', key))).body.equals(data)).toBe(true);
  }

  it('blocks sent out of order, a last block of 4 MiB after 8 MiB blocks', async () => {
    const { put } = await setup();
    const data = randomBytes(20 * MiB);
    const batch = randomUUID();
    const c1 = await put('a.bin', batch, data.subarray(8 * MiB, 16 * MiB), 8 * MiB, 1);
    const c2 = await put('a.bin', batch, data.subarray(16 * MiB), 4 * MiB, 2);
    const c0 = await put('a.bin', batch, data.subarray(0, 8 * MiB), 8 * MiB, 0);
    await finish('a.bin', batch, data, [c0, c1, c2]);
    expect(emu!.blockCount()).toBe(0);
  });

  it('a block sent twice (a restarted block): the list names the second one, the first is left for the purge', async () => {
    const { put } = await setup();
    const data = randomBytes(8 * MiB + 10);
    const batch = randomUUID();
    const c0 = await put('b.bin', batch, data.subarray(0, 4 * MiB), 4 * MiB, 0);
    await put('b.bin', batch, randomBytes(4 * MiB), 4 * MiB, 1);
    const c1 = await put('b.bin', batch, data.subarray(4 * MiB, 8 * MiB), 4 * MiB, 1);
    const c2 = await put('b.bin', batch, data.subarray(8 * MiB), 10, 2);
    await finish('b.bin', batch, data, [c0, c1, c2]);
    expect(emu!.blockCount()).toBe(1);
  });

  it('blocks sent in the same batch after its mkfile do not change the object', async () => {
    const { put } = await setup();
    const data = randomBytes(8 * MiB);
    const batch = randomUUID();
    const c0 = await put('c.bin', batch, data.subarray(0, 4 * MiB), 4 * MiB, 0);
    const c1 = await put('c.bin', batch, data.subarray(4 * MiB), 4 * MiB, 1);
    await finish('c.bin', batch, data, [c0, c1]);
    const later = randomBytes(12 * MiB);
    const d0 = await put('d.bin', batch, later.subarray(0, 4 * MiB), 4 * MiB, 0);
    const d1 = await put('d.bin', batch, later.subarray(4 * MiB, 8 * MiB), 4 * MiB, 1);
    const d2 = await put('d.bin', batch, later.subarray(8 * MiB), 4 * MiB, 2);
    await finish('d.bin', batch, later, [d0, d1, d2]);
    expect((await mgr!.download(emu!.objectUrl('local', 'c.bin'))).body.equals(data)).toBe(true);
  });
});
