import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import type { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { ManualClock } from '../../../src-main/emulator/clock';
import { DataDirInUseError } from '../../../src-main/emulator/data-lock';
import { startEmulator } from '../../../src-main/emulator/server';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const BLOCK = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;

describe('emulator: persistence across restarts, and the purge of unmerged blocks', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('keeps objects, and unmerged blocks that a bput after the restart continues with the old ctx', async () => {
    emu = await startTestEmulator();
    let up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const stored = randomBytes(5000);
    const t1 = emu.token({ scope: 'local:kept.bin' });
    const b1 = randomUUID();
    const c1 = await up.mkblk({ token: t1, blockSize: stored.length, blockOrder: 0, batch: b1, chunk: stored });
    await up.mkfile({ token: t1, fileSize: stored.length, batch: b1, ctxs: [c1.ctx] });

    const data = randomBytes(BLOCK + 10);
    const key = 'resumed.bin';
    const batch = randomUUID();
    const first = await up.mkblk({
      token: emu.token({ scope: `local:${key}` }),
      blockSize: BLOCK,
      blockOrder: 0,
      batch,
      chunk: data.subarray(0, 1_000_000),
    });
    const tail = await up.mkblk({
      token: emu.token({ scope: `local:${key}` }),
      blockSize: 10,
      blockOrder: 1,
      batch,
      chunk: data.subarray(BLOCK),
    });
    up.close();

    const oldPort = emu.port;
    emu = await emu.restart();
    expect(emu.port).not.toBe(oldPort);
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    const mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
    try {
      expect((await mgr.download(emu.objectUrl('local', 'kept.bin'))).body.equals(stored)).toBe(true);
      expect(emu.blockCount()).toBe(2);
      const token = emu.token({ scope: `local:${key}` });
      const next = await up.bput({
        token,
        ctx: first.ctx,
        offset: first.offset,
        batch,
        chunk: data.subarray(1_000_000, BLOCK),
      });
      expect(next.offset).toBe(BLOCK);
      const done = await up.mkfile({ token, fileSize: data.length, batch, ctxs: [next.ctx, tail.ctx] });
      expect(done.hash).toBe(etagOfBuffer(data));
      expect((await mgr.download(emu.objectUrl('local', key))).body.equals(data)).toBe(true);
    } finally {
      up.close();
      mgr.close();
    }
  });

  it('purges unmerged blocks older than purgeAgeMs when the clock moves; their ctx then fails (401) and mkfile says 412', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    emu = await startTestEmulator({ clock, purgeAgeMs: 30 * DAY_MS });
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    try {
      const token = () => emu!.token({ scope: 'local:purged.bin' });
      const batch = randomUUID();
      const old = await up.mkblk({ token: token(), blockSize: 100, blockOrder: 0, batch, chunk: randomBytes(50) });
      clock.advance(20 * DAY_MS);
      const recentBatch = randomUUID();
      const recent = await up.mkblk({
        token: token(),
        blockSize: 100,
        blockOrder: 0,
        batch: recentBatch,
        chunk: randomBytes(50),
      });
      expect(emu.sweepNow().blocks).toBe(0);
      clock.advance(11 * DAY_MS);
      expect(emu.sweepNow().blocks).toBe(1);
      expect(emu.blockCount()).toBe(1);
      const e = await up
        .bput({ token: token(), ctx: old.ctx, offset: 50, batch, chunk: randomBytes(50) })
        .catch((x: unknown) => x);
      expect((e as ServiceError).status).toBe(401);
      expect((e as ServiceError).serviceMessage).toMatch(/purged/);
      // The recent block is still there and continues.
      const r2 = await up.bput({
        token: token(),
        ctx: recent.ctx,
        offset: 50,
        batch: recentBatch,
        chunk: randomBytes(50),
      });
      expect(r2.offset).toBe(100);
      const mk = await up.mkfile({ token: token(), fileSize: 100, batch, ctxs: [old.ctx] }).catch((x: unknown) => x);
      expect((mk as ServiceError).status).toBe(412);
    } finally {
      up.close();
    }
  });

  it('the periodic sweep runs by itself, and the admin route can move the clock', async () => {
    emu = await startTestEmulator({ purgeIntervalMs: 20, purgeAgeMs: DAY_MS });
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    try {
      await up.mkblk({
        token: emu.token(),
        blockSize: 100,
        blockOrder: 0,
        batch: randomUUID(),
        chunk: randomBytes(10),
      });
      expect(emu.blockCount()).toBe(1);
      const res = await fetch(`${emu.adminUrl}/clock`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${emu.adminToken}` },
        body: JSON.stringify({ advanceMs: DAY_MS + 1000 }),
      });
      expect(res.status).toBe(200);
      const deadline = Date.now() + 5000;
      while (emu.blockCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(emu.blockCount()).toBe(0);
    } finally {
      up.close();
    }
  });

  it('refuses a second emulator on the same data folder, and takes over a lock left by a dead process', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-lock-'));
    try {
      emu = await startTestEmulator({ dataDir: dir });
      await expect(startEmulator({ dataDir: dir })).rejects.toBeInstanceOf(DataDirInUseError);
      // The running one is unharmed.
      expect(emu.objects.putBuffer('local', 'still.txt', Buffer.from('ok'), {}).size).toBe(2);
      await emu.close();
      // A stale lock (no such process) does not block a start.
      writeFileSync(path.join(dir, 'emulator.lock'), '2147483646');
      emu = await startTestEmulator({ dataDir: dir });
      expect(emu.objects.stat('local', 'still.txt')?.size).toBe(2);
      await emu.close();
      emu = undefined;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
