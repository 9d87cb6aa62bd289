import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import type { FaultConfig } from '../../../src-main/emulator/faults';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const open: TestEmulator[] = [];
async function emulator(faults?: FaultConfig): Promise<TestEmulator> {
  const emu = await startTestEmulator({ faults });
  open.push(emu);
  return emu;
}

/** Runs the same sequence of mkblk and bput calls and lists each outcome. */
async function outcomes(emu: TestEmulator, n: number): Promise<string[]> {
  const up = new UploadClient({ uploadUrl: emu.uploadUrl });
  const token = emu.token();
  const seen: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const batch = randomUUID();
      try {
        const r = await up.mkblk({ token, blockSize: 2000, blockOrder: 0, batch, chunk: Buffer.alloc(1000, i) });
        seen.push('mkblk ok');
        await up.bput({ token, ctx: r.ctx, offset: 1000, batch, chunk: Buffer.alloc(1000, i) });
        seen.push('bput ok');
      } catch (e) {
        seen.push(e instanceof ServiceError ? `${e.endpoint} ${e.kind} ${e.status}` : String(e));
      }
    }
  } finally {
    up.close();
  }
  return seen;
}

describe('emulator: fault injection', () => {
  afterEach(async () => {
    for (const emu of open.splice(0)) await emu.close();
  });

  const config: FaultConfig = {
    seed: 42,
    errors: [
      { endpoints: ['mkblk'], rate: 0.3, status: 503 },
      { endpoints: ['bput'], rate: 0.2, status: 599 },
    ],
    reset: { rate: 0.2, endpoints: ['bput'] },
  };

  it('is off by default', async () => {
    const emu = await emulator();
    expect(await outcomes(emu, 10)).toEqual(Array.from({ length: 10 }, () => ['mkblk ok', 'bput ok']).flat());
  });

  it('replays the same faults from the same seed, other faults from another seed', async () => {
    const a = await outcomes(await emulator(config), 40);
    const b = await outcomes(await emulator(config), 40);
    const c = await outcomes(await emulator({ ...config, seed: 7 }), 40);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a).toContain('mkblk service 503');
    expect(a).toContain('bput service 599');
    expect(a).toContain('bput network 0');
    expect(a).toContain('bput ok');
  });

  it('can be switched at run time through the admin route (and setFaults); bad configurations are 400', async () => {
    const emu = await emulator();
    const post = (body: unknown, token = emu.adminToken) =>
      fetch(`${emu.adminUrl}/faults`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    expect((await post({ errors: [{ rate: 1, status: 503 }] }, 'wrong')).status).toBe(401);
    const bad = await post({ errors: [{ rate: 2 }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/errors/);
    expect((await post({ errors: [{ endpoints: ['mkblk'], rate: 1, status: 503 }] })).status).toBe(200);
    expect(await outcomes(emu, 2)).toEqual(['mkblk service 503', 'mkblk service 503']);
    const events = (await (
      await fetch(`${emu.adminUrl}/faults`, { headers: { Authorization: `Bearer ${emu.adminToken}` } })
    ).json()) as { events: unknown[] };
    expect(events.events).toEqual([
      { kind: 'error', endpoint: 'mkblk', n: 0, status: 503 },
      { kind: 'error', endpoint: 'mkblk', n: 1, status: 503 },
    ]);
    emu.setFaults({});
    expect(await outcomes(emu, 1)).toEqual(['mkblk ok', 'bput ok']);
  });

  it('a reset in the middle of a body leaves the block as it was: the same ctx works on retry', async () => {
    const emu = await emulator({ reset: { rate: 1, endpoints: ['bput'] } });
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    try {
      const token = emu.token({ scope: 'local:reset.bin' });
      const batch = randomUUID();
      const data = randomBytes(300_000);
      const first = await up.mkblk({
        token,
        blockSize: data.length,
        blockOrder: 0,
        batch,
        chunk: data.subarray(0, 100_000),
      });
      const cut = await up
        .bput({ token, ctx: first.ctx, offset: 100_000, batch, chunk: data.subarray(100_000) })
        .catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(ServiceError);
      expect((cut as ServiceError).kind).toBe('network');
      emu.setFaults({});
      const done = await up.bput({ token, ctx: first.ctx, offset: 100_000, batch, chunk: data.subarray(100_000) });
      const file = await up.mkfile({ token, fileSize: data.length, batch, ctxs: [done.ctx] });
      expect(file.hash).toBe(etagOfBuffer(data));
    } finally {
      up.close();
    }
  });

  it('forced ctx expiry refuses every N-th ctx use with 401; the block restarts with mkblk', async () => {
    const emu = await emulator({ ctxExpiry: { afterUses: 2 } });
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    try {
      const token = emu.token();
      const batch = randomUUID();
      const a = await up.mkblk({ token, blockSize: 30, blockOrder: 0, batch, chunk: Buffer.alloc(10) });
      const b = await up.bput({ token, ctx: a.ctx, offset: 10, batch, chunk: Buffer.alloc(10) });
      const refused = await up
        .bput({ token, ctx: b.ctx, offset: 20, batch, chunk: Buffer.alloc(10) })
        .catch((e: unknown) => e);
      expect((refused as ServiceError).status).toBe(401);
      expect((refused as ServiceError).serviceMessage).toMatch(/expired/);
      const again = await up.mkblk({ token, blockSize: 30, blockOrder: 0, batch, chunk: Buffer.alloc(20) });
      expect((await up.bput({ token, ctx: again.ctx, offset: 20, batch, chunk: Buffer.alloc(10) })).offset).toBe(30);
    } finally {
      up.close();
    }
  });

  it('latency and a bandwidth cap slow requests down but keep them correct', async () => {
    const emu = await emulator({ latencyMs: 5, latencyJitterMs: 5, bandwidthBytesPerSec: 20 * 1024 * 1024 });
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    try {
      const token = emu.token({ scope: 'local:slow.bin' });
      const batch = randomUUID();
      const data = randomBytes(1024 * 1024);
      const r = await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch, chunk: data });
      expect((await up.mkfile({ token, fileSize: data.length, batch, ctxs: [r.ctx] })).hash).toBe(etagOfBuffer(data));
      const latency = emu.faultEvents().filter((e) => e.kind === 'latency');
      expect(latency.map((e) => e.endpoint)).toEqual(['mkblk', 'mkfile']);
      for (const e of latency) expect(e.ms).toBeGreaterThanOrEqual(5);
    } finally {
      up.close();
    }
  });
});
