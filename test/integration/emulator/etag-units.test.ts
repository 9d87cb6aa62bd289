import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;

/**
 * mkfile's hash comes from unit SHA1s recorded while chunks arrived (no re-hash of the
 * object): these check it against the bytes in the cases that disturb the running state.
 */
describe('emulator: etag from unit digests recorded during upload', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('chunks crossing unit boundaries, a cut chunk and a restart mid-unit still give the right hash and bytes', async () => {
    emu = await startTestEmulator({ faults: { reset: { rate: 1, endpoints: ['bput'] } } });
    const data = randomBytes(12 * MiB + 5000);
    const key = 'units.bin';
    const batch = randomUUID();
    let up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const token = () => emu!.token({ scope: `local:${key}` });
    const b0a = await up.mkblk({
      token: token(),
      blockSize: 12 * MiB,
      blockOrder: 0,
      batch,
      chunk: data.subarray(0, 3 * MiB),
    });
    const cut = await up
      .bput({ token: token(), ctx: b0a.ctx, offset: b0a.offset, batch, chunk: data.subarray(3 * MiB, 6 * MiB) })
      .catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ServiceError);
    emu.setFaults({});
    up.close();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const b0b = await up.bput({
      token: token(),
      ctx: b0a.ctx,
      offset: b0a.offset,
      batch,
      chunk: data.subarray(3 * MiB, 6 * MiB),
    });
    up.close();
    emu = await emu.restart({ faults: {} });
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
    try {
      const b0c = await up.bput({
        token: token(),
        ctx: b0b.ctx,
        offset: b0b.offset,
        batch,
        chunk: data.subarray(6 * MiB, 12 * MiB),
      });
      const b1 = await up.mkblk({
        token: token(),
        blockSize: 5000,
        blockOrder: 1,
        batch,
        chunk: data.subarray(12 * MiB),
      });
      const done = await up.mkfile({ token: token(), fileSize: data.length, batch, ctxs: [b0c.ctx, b1.ctx] });
      expect(done.hash).toBe(etagOfBuffer(data));
      expect((await mgr.download(emu.objectUrl('local', key))).body.equals(data)).toBe(true);
    } finally {
      up.close();
      mgr.close();
    }
  });

  it('a one-block object is right, and removing its block leaves the object intact', async () => {
    emu = await startTestEmulator();
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
    try {
      const data = randomBytes(4096);
      const batch = randomUUID();
      const token = emu.token({ scope: 'local:one.bin' });
      const c = await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch, chunk: data });
      const done = await up.mkfile({ token, fileSize: data.length, batch, ctxs: [c.ctx] });
      expect(done.hash).toBe(etagOfBuffer(data));
      expect(emu.blockCount()).toBe(0);
      expect((await mgr.download(emu.objectUrl('local', 'one.bin'))).body.equals(data)).toBe(true);
    } finally {
      up.close();
      mgr.close();
    }
  });

  it('a block whose digests are missing (left by an older emulator) is hashed while merged', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bl-emu-old-'));
    try {
      emu = await startTestEmulator({ dataDir });
      const data = randomBytes(4 * MiB + 100);
      const batch = randomUUID();
      const token = () => emu!.token({ scope: 'local:old.bin' });
      let up = new UploadClient({ uploadUrl: emu.uploadUrl });
      const b0 = await up.mkblk({
        token: token(),
        blockSize: 4 * MiB,
        blockOrder: 0,
        batch,
        chunk: data.subarray(0, 4 * MiB),
      });
      const b1 = await up.mkblk({
        token: token(),
        blockSize: 100,
        blockOrder: 1,
        batch,
        chunk: data.subarray(4 * MiB),
      });
      up.close();
      await emu.close();
      // The rows now look like those written before the digests existed (schema version 1).
      const db = new Database(path.join(dataDir, 'emulator.db'));
      expect(db.prepare("UPDATE blocks SET unit_digests = x''").run().changes).toBe(2);
      db.close();
      emu = await startTestEmulator({ dataDir });
      up = new UploadClient({ uploadUrl: emu.uploadUrl });
      try {
        const done = await up.mkfile({ token: token(), fileSize: data.length, batch, ctxs: [b0.ctx, b1.ctx] });
        expect(done.hash).toBe(etagOfBuffer(data));
      } finally {
        up.close();
      }
    } finally {
      await emu?.close();
      emu = undefined;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
