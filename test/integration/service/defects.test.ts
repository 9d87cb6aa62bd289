import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../../src-main/store/app-db';
import { SettingsRepo } from '../../../src-main/store/settings-repo';
import type { Schedule } from '../../../src-main/sync/schedule';
import { CoreWorld, isType } from './harness';

const MiB = 1024 * 1024;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Defects found where the Settings screen touches the core; each test failed before its fix. */
describe('settings reach the core', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  const settled = (id: number) =>
    isType('transfer-changed', (e) => e.transfer.id === id && ['done', 'failed'].includes(e.transfer.state));

  it('an account whose upload URL changed to a closed port: the next transfer uses the new URL, not the old client', async () => {
    w = await CoreWorld.create();
    const core = await w.open({ engine: { backoff: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 5 } } });
    const accountId = core.localAccountId!;
    const bucket = core.embedded!.bucket;
    const file = path.join(w.tmp, 'a.txt');
    writeFileSync(file, 'first');
    const [first] = core.engine.enqueue([{ accountId, bucket, key: 'a.txt', localPath: file, source: 'manual' }]);
    expect((await w.waitFor(settled(first!))).transfer.state).toBe('done');

    const row = core.accounts.get(accountId)!;
    const closed = `http://127.0.0.1:${await closedPort()}`;
    core.accounts.upsert({ ...row, uploadUrl: closed });
    core.useCases.accounts.changed(accountId);
    const [second] = core.engine.enqueue([{ accountId, bucket, key: 'b.txt', localPath: file, source: 'manual' }]);
    const end = await w.waitFor(settled(second!));
    expect(end.transfer.state).toBe('failed');
    expect(await core.embedded!.emulator.objects.stat(bucket, 'b.txt')).toBeUndefined();
  });

  it('an account whose management URL changed: the next poll of a tracked task uses the new URL, no restart', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const accountId = core.localAccountId!;
    const row = core.accounts.get(accountId)!;
    await core.embedded!.emulator.objects.putBuffer('local', 'x.txt', Buffer.from('x'), {});
    const task = await core.fmgr.submit(accountId, 'copy', [
      { op: 'copy', srcBucket: 'local', srcKey: 'x.txt', bucket: 'local', key: 'y.txt' },
    ]);
    await w.waitFor(isType('fmgr-task-changed', (e) => e.task.id === task.id && e.task.tracking === 'done'));

    core.accounts.upsert({ ...row, mgrUrl: `http://127.0.0.1:${await closedPort()}` });
    core.useCases.accounts.changed(accountId);
    const tracked = core.fmgr.track(accountId, 'a-task-to-poll');
    const polled = await core.fmgr.pollNow(tracked.id);
    expect(polled?.error?.code).toBe('network');

    core.accounts.upsert(row);
    core.useCases.accounts.changed(accountId);
    const again = await core.fmgr.pollNow(tracked.id);
    expect(again?.error?.code).not.toBe('network');
  });

  it("with a stored schedule, the user's bandwidth limit is kept at open (the smaller of both applies)", async () => {
    w = await CoreWorld.create();
    const core = await w.open({ wakeDetector: false });
    const always: Schedule = { outside: { action: 'run' }, windows: [] };
    core.useCases.settings.setSchedule(always);
    await w.closeCore();

    const again = await w.open({ wakeDetector: false, engine: { bandwidthBytesPerSec: 2 * MiB } });
    expect(again.engine.bandwidthLimit).toBe(2 * MiB);
    again.useCases.settings.setSchedule({ outside: { action: 'run', bytesPerSecond: 1 * MiB }, windows: [] });
    expect(again.engine.bandwidthLimit).toBe(1 * MiB);
    again.useCases.settings.setSchedule({ outside: { action: 'run', bytesPerSecond: 5 * MiB }, windows: [] });
    expect(again.engine.bandwidthLimit).toBe(2 * MiB);
  });

  it('quit inside a schedule pause window, start outside it: what the schedule paused resumes and finishes', async () => {
    w = await CoreWorld.create();
    const core = await w.open({ wakeDetector: false });
    core.useCases.settings.setSchedule({ outside: { action: 'pause' }, windows: [] });
    const file = path.join(w.tmp, 'night.txt');
    writeFileSync(file, 'uploaded after the window');
    const accountId = core.localAccountId!;
    const bucket = core.embedded!.bucket;
    const [id] = core.engine.enqueue([{ accountId, bucket, key: 'night.txt', localPath: file, source: 'manual' }]);
    await w.waitFor(isType('transfer-changed', (e) => e.transfer.id === id && e.transfer.state === 'paused'));
    await w.closeCore();

    // Time passes: the next start is outside the window (the stored schedule runs now).
    const db = openAppDatabase(path.join(w.dataDir, 'blocklift.db'));
    new SettingsRepo(db).set('uploadSchedule', { outside: { action: 'run' }, windows: [] });
    db.close();

    w.events = [];
    await w.open({ wakeDetector: false });
    expect((await w.waitFor(settled(id!))).transfer.state).toBe('done');
  });
});
