import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MgrClient } from '../../../src-main/protocol/client';
import type { FmgrTaskStatus } from '../../../src-main/protocol/types';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { eventually, mgrClient, putObject, startReceiver, waitTask, type Receiver } from './fmgr-support';

// Fmgr notifications to a real receiver on 127.0.0.1 that verifies each signature.

let emu: TestEmulator;
let mgr: MgrClient;
let rx: Receiver;

beforeAll(async () => {
  emu = await startTestEmulator({ notifyRetry: { attempts: 3, baseDelayMs: 10 } });
  mgr = mgrClient(emu);
  rx = await startReceiver(emu);
});
afterAll(async () => {
  mgr?.close();
  await emu?.close();
  await rx?.close();
});

function fresh(): void {
  rx.received.length = 0;
  rx.answers.length = 0;
}

describe('Fmgr notifications', () => {
  it('separate=0: one signed text/plain notification with the whole task; status ends 6 with items 6', async () => {
    fresh();
    await putObject(emu, emu.bucket, 'n/a.txt', 'a');
    const { persistentId } = await mgr.fmgrSubmit(
      'copy',
      [{ op: 'copy', srcBucket: emu.bucket, srcKey: 'n/a.txt', bucket: emu.bucket, key: 'n/b.txt' }],
      {
        notifyURL: rx.url('/hooks/fmgr?tag=1'),
      },
    );
    const { codes, status } = await waitTask(mgr, persistentId, { notified: true });
    expect(codes[codes.length - 1]).toBe(6);
    expect(codes.every((c, i) => i === 0 || c > codes[i - 1]!)).toBe(true); // never goes back (order is checked with slow steps in fmgr.test.ts)
    expect(status.items[0]!.code).toBe(6);
    expect(rx.received).toHaveLength(1);
    const n = rx.received[0]!;
    expect(n).toMatchObject({ path: '/hooks/fmgr?tag=1', contentType: 'text/plain', signed: true });
    const body = n.json as FmgrTaskStatus;
    expect(body).toMatchObject({ id: persistentId, code: 3, desc: 'notification succeeded', separate: '0' });
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ code: 4, desc: 'success, notifying', key: 'n/b.txt' });
  });

  it('a receiver that keeps failing gets every retry and the task ends 5, items 5 (success) and 19 (failure)', async () => {
    fresh();
    rx.answers.push(500, 503, 404);
    await putObject(emu, emu.bucket, 'f/a.txt', 'a');
    const { persistentId } = await mgr.fmgrSubmit(
      'copy',
      [
        { op: 'copy', srcBucket: emu.bucket, srcKey: 'f/a.txt', bucket: emu.bucket, key: 'f/b.txt' },
        { op: 'copy', srcBucket: emu.bucket, srcKey: 'f/absent.txt', bucket: emu.bucket, key: 'f/c.txt' },
      ],
      { notifyURL: rx.url('/fail') },
    );
    const { status } = await waitTask(mgr, persistentId, { notified: true });
    expect(status.code).toBe(5);
    expect(status.desc).toBe('notification failed');
    expect(status.items.map((i) => i.code)).toEqual([5, 19]);
    expect(rx.received.map((r) => r.answered)).toEqual([500, 503, 404]);
    expect(rx.received.every((r) => r.signed)).toBe(true);
    expect((rx.received[0]!.json as FmgrTaskStatus).items.map((i) => i.code)).toEqual([4, 18]);
  });

  it('a receiver that fails once then answers 200 makes the task succeed (6)', async () => {
    fresh();
    rx.answers.push(502);
    await putObject(emu, emu.bucket, 'r/a.txt', 'a');
    const { persistentId } = await mgr.fmgrSubmit('delete', [{ op: 'delete', bucket: emu.bucket, key: 'r/a.txt' }], {
      notifyURL: rx.url('/retry'),
    });
    const { status } = await waitTask(mgr, persistentId, { notified: true });
    expect(status.code).toBe(6);
    expect(rx.received.map((r) => r.answered)).toEqual([502, 200]);
  });

  it('separate=1: one notification per item, codes 1 (others pending) then 2 (some failed); items end 6 and 20', async () => {
    fresh();
    await putObject(emu, emu.bucket, 's/a.txt', 'a');
    const { persistentId } = await mgr.fmgrSubmit(
      'copy',
      [
        { op: 'copy', srcBucket: emu.bucket, srcKey: 's/a.txt', bucket: emu.bucket, key: 's/b.txt' },
        { op: 'copy', srcBucket: emu.bucket, srcKey: 's/absent.txt', bucket: emu.bucket, key: 's/c.txt' },
      ],
      { notifyURL: rx.url('/sep'), separate: 1 },
    );
    const { status } = await waitTask(mgr, persistentId, { notified: true });
    expect(status.code).toBe(6);
    expect(status.separate).toBe('1');
    expect(status.items.map((i) => i.code)).toEqual([6, 20]);
    await eventually(() => rx.received.length === 2, 'two notifications');
    const bodies = rx.received.map((r) => r.json as FmgrTaskStatus);
    expect(rx.received.every((r) => r.signed)).toBe(true);
    expect(bodies.map((b) => [b.code, b.items.length, b.items[0]!.code])).toEqual([
      [1, 1, 4],
      [2, 1, 18],
    ]);
    expect(bodies[0]!.desc).toBe('separate notification, some tasks still processing');
    expect(bodies[1]!.items[0]!.error).toMatch(/file not found/);
  });

  it('an unreachable notifyURL ends the task in 5 after the retries', async () => {
    fresh();
    const dead = await startReceiver(emu);
    const deadUrl = dead.url('/gone');
    await dead.close();
    await putObject(emu, emu.bucket, 'u/a.txt', 'a');
    const { persistentId } = await mgr.fmgrSubmit('delete', [{ op: 'delete', bucket: emu.bucket, key: 'u/a.txt' }], {
      notifyURL: deadUrl,
    });
    const { status } = await waitTask(mgr, persistentId, { notified: true });
    expect(status.code).toBe(5);
    expect(status.items[0]!.code).toBe(5);
  });
});
