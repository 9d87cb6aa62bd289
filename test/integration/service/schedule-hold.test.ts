import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Pauses } from '../../../src-main/service/pauses';
import { UploadSchedule } from '../../../src-main/service/upload-schedule';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { TransferQueryRepo } from '../../../src-main/store/transfer-query';
import { WatchManager } from '../../../src-main/sync/watch-manager';
import { SyncHarness } from '../sync/harness';

const MiB = 1024 * 1024;

/**
 * The upload schedule of the app service (upload-schedule.ts) over a real engine and watch
 * manager: it pauses and resumes only what it paused itself (reasons kept by pauses.ts), so
 * a root the user paused and a transfer paused by hand stay paused when a pause window ends.
 */
describe('schedule: resumes only what it held', () => {
  let h: SyncHarness;
  let m: WatchManager | undefined;
  let sched: UploadSchedule | undefined;

  /** The service's wiring: reasons in the database, the schedule over every transfer, roots pausing with reason 'root'. */
  const wire = (now: () => Date) => {
    const repo = new TransferQueryRepo(h.db!);
    const pauses: Pauses = new Pauses({
      queue: h.engine!,
      control: h.engine!,
      repo,
      scheduleHolds: () => sched!.holds(),
    });
    sched = new UploadSchedule({ queue: h.engine!, control: h.engine!, pauses, repo, now });
    m = new WatchManager({
      repo: h.repo!,
      queue: h.engine!,
      control: { pause: (id) => pauses.pause(id, 'root'), resume: (id) => pauses.resume(id, 'root') },
      dataDir: path.dirname(h.dbFile),
      backend: 'parcel',
    });
    return { pauses, sched, m };
  };
  beforeEach(async () => {
    h = await SyncHarness.create();
    await h.openRun({ backend: 'parcel', startEngine: false });
    await h.root!.close();
    h.repo!.removeRoot(h.root!.id);
  });
  afterEach(async () => {
    sched?.close();
    sched = undefined;
    await m?.close();
    m = undefined;
    await h.dispose();
  });

  const put = async (rel: string) => {
    const abs = path.join(h.folder, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, rel);
    await utimes(abs, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  };
  const stateOf = (rootId: number, rel: string) => h.engine!.get(h.repo!.getFile(rootId, rel)!.transferId!)?.state;

  it('the manager timer ends a one-minute pause window: held ones resume, user-paused root and hand-paused transfer stay paused', async () => {
    const accountId = new AccountRepo(h.db!).byName('Local')!.id;
    // A clock held at 200 ms before the end of a minute while the test sets things up (a busy
    // machine can take seconds), moved past the minute when the window should end; the window is that minute.
    const target = new Date();
    target.setSeconds(59, 800);
    if (target.getHours() === 23 && target.getMinutes() === 59) target.setTime(target.getTime() - 60_000);
    let now = target;
    const clock = () => now;
    const { pauses, m } = wire(clock);
    await put('a/one.jpg');
    await put('b/two.jpg');
    const a = await m.addRoot({
      folder: path.join(h.folder, 'a'),
      accountId,
      bucket: h.emu.bucket,
      options: { stabilityMs: 100 },
    });
    const b = await m.addRoot({
      folder: path.join(h.folder, 'b'),
      accountId,
      bucket: h.emu.bucket,
      options: { stabilityMs: 100 },
    });
    const [manualRuns, manualByHand] = h.engine!.enqueue([
      { accountId, bucket: h.emu.bucket, key: 'm/1', localPath: path.join(h.folder, 'a/one.jpg'), source: 'manual' },
      { accountId, bucket: h.emu.bucket, key: 'm/2', localPath: path.join(h.folder, 'a/one.jpg'), source: 'manual' },
    ]) as [number, number];
    expect(pauses.pause(manualByHand, 'user')).toBe(true);
    expect(stateOf(a.id, 'one.jpg')).toBe('queued');

    const minute = target.getHours() * 60 + target.getMinutes();
    const state = sched!.setSchedule({
      outside: { action: 'run' },
      windows: [{ startMinute: minute, endMinute: minute + 1, action: 'pause' }],
    });
    expect(state.running).toBe(false);
    expect(stateOf(a.id, 'one.jpg')).toBe('paused');
    expect(stateOf(b.id, 'two.jpg')).toBe('paused');
    expect(h.engine!.get(manualRuns)?.state).toBe('paused');

    // During the window: the user pauses root b; a new file of root a is queued and held.
    await m.pauseRoot(b.id);
    await put('a/three.jpg');
    await m.rescanAll();
    expect(stateOf(a.id, 'three.jpg')).toBe('paused');

    // The schedule's own timer (≈1 s, re-armed while the clock still reads the window) ends it.
    now = new Date(target.getTime() + 400);
    for (let i = 0; i < 600 && stateOf(a.id, 'one.jpg') !== 'queued'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stateOf(a.id, 'one.jpg')).toBe('queued');
    expect(stateOf(a.id, 'three.jpg')).toBe('queued');
    expect(h.engine!.get(manualRuns)?.state).toBe('queued');
    expect(stateOf(b.id, 'two.jpg')).toBe('paused');
    expect(h.engine!.get(manualByHand)?.state).toBe('paused');
    // The user's resume of b resumes its transfers.
    await m.resumeRoot(b.id);
    expect(stateOf(b.id, 'two.jpg')).toBe('queued');
  });

  it('applies the schedule through the engine: bandwidth per window, uploads held in a pause window', async () => {
    await mkdir(path.join(h.folder, 'photos'), { recursive: true });
    let clock = new Date(2024, 0, 1, 10, 0); // a Monday, 10:00
    const { m: mgr, sched: s } = wire(() => clock);
    h.engine!.start();
    const schedule = {
      outside: { action: 'run' as const },
      windows: [
        {
          days: [1, 2, 3, 4, 5],
          startMinute: 9 * 60,
          endMinute: 12 * 60,
          action: 'run' as const,
          bytesPerSecond: 2 * MiB,
        },
        { startMinute: 12 * 60, endMinute: 13 * 60, action: 'pause' as const },
      ],
    };
    expect(s.setSchedule(schedule)).toEqual({ running: true, bytesPerSecond: 2 * MiB });
    expect(h.engine!.bandwidthLimit).toBe(2 * MiB);
    clock = new Date(2024, 0, 1, 12, 30);
    expect(s.setSchedule(schedule)).toEqual({ running: false, bytesPerSecond: null });
    expect(h.engine!.bandwidthLimit).toBeNull();
    await mgr.addRoot({
      folder: path.join(h.folder, 'photos'),
      accountId: new AccountRepo(h.db!).byName('Local')!.id,
      bucket: h.emu.bucket,
    });
    await writeFile(path.join(h.folder, 'photos', 'held.jpg'), 'h');
    await utimes(
      path.join(h.folder, 'photos', 'held.jpg'),
      new Date(Date.now() - 60_000),
      new Date(Date.now() - 60_000),
    );
    await mgr.rescanAll();
    await new Promise((r) => setTimeout(r, 300));
    expect(h.takeUploads()).toEqual([]);
    const row = h.repo!.getFile(mgr.list()[0]!.id, 'held.jpg');
    expect(h.engine!.get(row!.transferId!)?.state).toBe('paused');
    clock = new Date(2024, 0, 1, 13, 0);
    expect(s.setSchedule(schedule)).toEqual({ running: true, bytesPerSecond: null });
    expect(h.engine!.get(row!.transferId!)?.state).not.toBe('paused');
    await h.engine!.whenIdle();
    expect(h.takeUploads()).toEqual(['held.jpg']);
  });
});
