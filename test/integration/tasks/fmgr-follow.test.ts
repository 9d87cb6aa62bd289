import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import { signNotification } from '../../../src-main/protocol/tokens';
import type { FmgrTaskView } from '../../../src-main/tasks/fmgr-view';
import { makeWorld, ACCOUNT_ID, type World } from './setup';

// Following Fmgr tasks: states in order, notifications (and forged ones), unknown ids,
// server errors, restarts. Real emulator, real SQLite, a real loopback receiver.
let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function until<T>(tracker: { onChange(fn: (v: T) => void): () => void }, pred: (v: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const off = tracker.onChange((v) => {
      if (pred(v)) {
        off();
        resolve(v);
      }
    });
  });
}

describe('following Fmgr tasks', () => {
  it('observes the states in order, each once, and keeps one snapshot per distinct body', async () => {
    w = await makeWorld({ emulator: { fmgrStepDelayMs: 300 } });
    w.emu.objects.putBuffer(w.emu.bucket, 'a', Buffer.from('a'), {});
    const seen: string[] = [];
    w.fmgr.onChange((v) => {
      if (v.state && seen[seen.length - 1] !== v.state) seen.push(v.state);
    });
    const t = await w.fmgr.submit(ACCOUNT_ID, 'copy', [
      { op: 'copy', srcBucket: w.emu.bucket, srcKey: 'a', bucket: w.emu.bucket, key: 'b' },
    ]);
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(seen).toEqual(['pending', 'processing', 'processing finished']);
    const snaps = w.fmgr.snapshots(t.id);
    expect(snaps.map((s) => s.code)).toEqual([0, 1, 3]);
    expect(snaps.every((s) => s.source === 'poll')).toBe(true);
    expect(snaps.reduce((n, s) => n + s.seenCount, 0)).toBe(done.polls);
    expect(snaps[1]!.body.items[0]!.code).toBe(1);
  });

  it('receives the notification, verifies it, updates the task at once and ends at "notification succeeded"', async () => {
    w = await makeWorld({ receiver: true });
    w.emu.objects.putBuffer(w.emu.bucket, 'n/a', Buffer.from('a'), {});
    const t = await w.fmgr.submit(ACCOUNT_ID, 'copy', [
      { op: 'copy', srcBucket: w.emu.bucket, srcKey: 'n/a', bucket: w.emu.bucket, key: 'n/b' },
    ]);
    expect(t.notifyUrl).toBe(`${w.publicBaseUrl}/notify/fmgr`);
    const fromNotify = await until<FmgrTaskView>(w.fmgr, (v) => v.id === t.id && v.codeSource === 'notify');
    expect(fromNotify).toMatchObject({ code: 3, state: 'notification succeeded' });
    expect(fromNotify.items[0]).toMatchObject({ key: 'n/b', state: 'success, notifying' });
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ tracking: 'done', code: 6, codeSource: 'poll', state: 'notification succeeded' });
    expect(done.items[0]!.state).toBe('success, notification succeeded');
    // Polling was only a fallback (30 s): the task ended through the notification.
    expect(done.polls).toBeLessThanOrEqual(2);
    expect(w.received).toEqual([{ url: '/bl/notify/fmgr', status: 200 }]);
    expect(w.fmgr.snapshots(t.id).map((s) => [s.source, s.code])).toContainEqual(['notify', 3]);
  });

  it('separate=1 sends one notification per item; each updates the task', async () => {
    w = await makeWorld({ receiver: true });
    for (const k of ['s/1', 's/2']) w.emu.objects.putBuffer(w.emu.bucket, k, Buffer.from(k), {});
    const t = await w.fmgr.submit(
      ACCOUNT_ID,
      'delete',
      [
        { op: 'delete', bucket: w.emu.bucket, key: 's/1' },
        { op: 'delete', bucket: w.emu.bucket, key: 's/2' },
      ],
      { separate: 1 },
    );
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ code: 6, separate: '1' });
    expect(w.received.filter((r) => r.status === 200)).toHaveLength(2);
    const notifyCodes = w.fmgr
      .snapshots(t.id)
      .filter((s) => s.source === 'notify')
      .map((s) => s.code);
    expect(notifyCodes).toHaveLength(2);
    expect(notifyCodes[notifyCodes.length - 1]).toBe(3);
  });

  it('rejects forged notifications with 401 and changes nothing; accepts a properly signed one', async () => {
    w = await makeWorld({ receiver: true });
    w.emu.objects.putBuffer(w.emu.bucket, 'f/a', Buffer.from('a'), {});
    const t = await w.fmgr.submit(ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: w.emu.bucket, key: 'f/a' }]);
    const done = await w.fmgr.waitUntilSettled(t.id);
    const snapsBefore = w.fmgr.snapshots(t.id);
    const forgedStatus = {
      id: t.persistentId,
      code: 2,
      desc: 'forged',
      separate: '0',
      items: [{ cmd: 'delete/x', code: 19, desc: 'x', error: 'forged' }],
    };
    const body = urlsafeB64Encode(JSON.stringify(forgedStatus));
    const url = `${w.publicBaseUrl}/notify/fmgr`;
    const ak = w.emu.config.accessKey;
    expect(await post(url, body, { Authorization: signNotification(ak, 'wrong-secret', url, body) })).toBe(401);
    expect(
      await post(url, body, {
        Authorization: signNotification(ak, w.emu.config.secretKey, `${w.publicBaseUrl}/notify/vca`, body),
      }),
    ).toBe(401);
    expect(
      await post(url, body, { Authorization: signNotification(ak, w.emu.config.secretKey, url, `${body}x`) }),
    ).toBe(401);
    expect(
      await post(url, body, { Authorization: signNotification('other-ak', w.emu.config.secretKey, url, body) }),
    ).toBe(401);
    expect(await post(url, body, {})).toBe(401);
    expect(w.fmgr.snapshots(t.id)).toEqual(snapsBefore);
    expect(w.fmgr.get(t.id)).toEqual(done);

    // The same body, signed by the account's key, is accepted (200) but the task is done: a
    // late or replayed notification must not overwrite its final state, so it is kept as a
    // snapshot (history) only. A poll the user asks for is what changes a done task.
    expect(await post(url, body, { Authorization: signNotification(ak, w.emu.config.secretKey, url, body) })).toBe(200);
    expect(w.fmgr.get(t.id)).toEqual({ ...done, updatedAt: expect.any(Number) });
    const kept = w.fmgr.snapshots(t.id);
    expect(kept).toHaveLength(snapsBefore.length + 1);
    expect(kept[kept.length - 1]).toMatchObject({ source: 'notify', code: 2, body: forgedStatus });
    // A signed body that is not a task: 400.
    const junk = urlsafeB64Encode('{"nope":1}');
    expect(await post(url, junk, { Authorization: signNotification(ak, w.emu.config.secretKey, url, junk) })).toBe(400);
  });

  it('a stale separate=1 notification (code 1) after the end is kept as history; the final state stays; pollNow re-reads', async () => {
    w = await makeWorld();
    w.emu.objects.putBuffer(w.emu.bucket, 'st/a', Buffer.from('a'), {});
    const t = await w.fmgr.submit(ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: w.emu.bucket, key: 'st/a' }], {
      separate: 1,
    });
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ tracking: 'done', code: 3 });
    const stale = {
      id: t.persistentId,
      code: 1,
      desc: 'processing',
      separate: '1',
      items: [{ cmd: 'delete/x', code: 1, desc: 'processing' }],
    };
    const v = w.fmgr.applyNotification(ACCOUNT_ID, stale);
    expect(v).toEqual({ ...done, updatedAt: expect.any(Number) });
    expect(w.fmgr.get(t.id)).toEqual(v);
    expect(
      w.fmgr
        .snapshots(t.id)
        .map((s) => [s.source, s.code])
        .slice(-2),
    ).toEqual([
      ['poll', 3],
      ['notify', 1],
    ]);
    // Nothing was scheduled for a done task; a poll the user asks for reads the service again.
    const again = await w.fmgr.pollNow(t.id);
    expect(again).toMatchObject({ tracking: 'done', code: 3, codeSource: 'poll', polls: done.polls + 1 });
  });

  it('an unknown persistentId shows the error on the task, keeps polling, then is given up as lost', async () => {
    w = await makeWorld();
    const t = w.fmgr.track(ACCOUNT_ID, 'no-such-task-id');
    const failing = await until<FmgrTaskView>(w.fmgr, (v) => v.id === t.id && v.error !== null);
    expect(failing.tracking).toBe('active');
    expect(failing.error).toMatchObject({ code: 'not-found' });
    expect(failing.error!.message).toMatch(/does not know this task id/);
    const lost = await w.fmgr.waitUntilSettled(t.id);
    expect(lost.tracking).toBe('lost');
    expect(lost.polls).toBeGreaterThanOrEqual(3);
    expect(lost.error?.code).toBe('not-found');
  });

  it('server errors are visible on the task and polling continues until it succeeds', async () => {
    w = await makeWorld();
    w.emu.objects.putBuffer(w.emu.bucket, 'e/a', Buffer.from('a'), {});
    const pid = w.emu.fmgr.submit(
      'delete',
      `bucket/${urlsafeB64Encode(w.emu.bucket)}/key/${urlsafeB64Encode('e/a')}`,
      {},
    );
    w.emu.setFaults({ errors: [{ endpoints: ['fmgr'], rate: 1, status: 503 }] });
    const t = w.fmgr.track(ACCOUNT_ID, pid);
    const failing = await until<FmgrTaskView>(w.fmgr, (v) => v.id === t.id && v.polls >= 3);
    expect(failing).toMatchObject({ tracking: 'active', error: { code: 'http-503' } });
    w.emu.setFaults({});
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ tracking: 'done', code: 3, error: null });
  });

  it('a task followed when the app stops is resumed from SQLite and finished', async () => {
    w = await makeWorld({ emulator: { fmgrStepDelayMs: 200 } });
    w.emu.objects.putBuffer(w.emu.bucket, 'r/a', Buffer.from('a'), {});
    const t = await w.fmgr.submit(ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: w.emu.bucket, key: 'r/a' }]);
    await w.closeApp();
    w.reopenApp();
    expect(w.fmgr.get(t.id)?.tracking).toBe('active');
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ tracking: 'done', code: 3 });
    expect(w.emu.objects.stat(w.emu.bucket, 'r/a')).toBeUndefined();
  });

  it('tracking by id is idempotent and can be stopped; ids are checked', async () => {
    w = await makeWorld({ emulator: { fmgrStepDelayMs: 500 } });
    const pid = w.emu.fmgr.submit(
      'delete',
      `bucket/${urlsafeB64Encode(w.emu.bucket)}/key/${urlsafeB64Encode('x')}`,
      {},
    );
    const a = w.fmgr.track(ACCOUNT_ID, ` ${pid} `);
    const b = w.fmgr.track(ACCOUNT_ID, pid, 'upload');
    expect(b.id).toBe(a.id);
    expect(b.origin).toBe('typed');
    const stopped = w.fmgr.stop(a.id)!;
    expect(stopped.tracking).toBe('stopped');
    const polls = w.fmgr.get(a.id)!.polls;
    await new Promise((r) => setTimeout(r, 150));
    expect(w.fmgr.get(a.id)!.polls).toBe(polls);
    expect(() => w!.fmgr.track(ACCOUNT_ID, '')).toThrow(/empty/);
    expect(() => w!.fmgr.track(ACCOUNT_ID, 'a b')).toThrow(/spaces/);
  });
});

describe('disposal', () => {
  it('dispose() ends pending waits and stops polling', async () => {
    w = await makeWorld({ emulator: { fmgrStepDelayMs: 2_000 } });
    const pid = w.emu.fmgr.submit(
      'delete',
      `bucket/${urlsafeB64Encode(w.emu.bucket)}/key/${urlsafeB64Encode('x')}`,
      {},
    );
    const t = w.fmgr.track(ACCOUNT_ID, pid);
    const waiting = w.fmgr.waitUntilSettled(t.id);
    await w.fmgr.dispose();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    const polls = w.fmgr.get(t.id)!.polls;
    await new Promise((r) => setTimeout(r, 100));
    expect(w.fmgr.get(t.id)!.polls).toBe(polls);
  });
});
