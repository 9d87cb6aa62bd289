import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import { engineThrottle, WatchManager } from '../../../src-main/sync/watch-manager';
import { SyncHarness } from './harness';

/**
 * The schedule pauses and resumes only what it paused itself: a root the user paused and
 * a transfer paused by hand stay paused when a pause window ends. The engine is not
 * started, so transfers stay queued or paused and their states are exact.
 */
describe('schedule: resumes only what it held', () => {
  let h: SyncHarness;
  let m: WatchManager | undefined;
  beforeEach(async () => {
    h = await SyncHarness.create();
    await h.openRun({ backend: 'parcel', startEngine: false });
    await h.root!.close();
    h.repo!.removeRoot(h.root!.id);
  });
  afterEach(async () => {
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
    m = new WatchManager({
      repo: h.repo!,
      queue: h.engine!,
      control: h.engine!,
      throttle: engineThrottle(h.engine!, new SqliteTransferStore(h.db!)),
      backend: 'parcel',
    });
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
    expect(h.engine!.pause(manualByHand)).toBe(true);
    expect(stateOf(a.id, 'one.jpg')).toBe('queued');

    // A clock 200 ms before the end of the current minute; the window is that minute.
    const real = new Date();
    const target = new Date(real);
    target.setSeconds(59, 800);
    if (target.getHours() === 23 && target.getMinutes() === 59) target.setTime(target.getTime() - 60_000);
    const offsetMs = target.getTime() - real.getTime();
    const clock = () => new Date(Date.now() + offsetMs);
    const minute = target.getHours() * 60 + target.getMinutes();
    const state = m.setSchedule(
      { outside: { action: 'run' }, windows: [{ startMinute: minute, endMinute: minute + 1, action: 'pause' }] },
      clock,
    );
    expect(state.running).toBe(false);
    expect(stateOf(a.id, 'one.jpg')).toBe('paused');
    expect(stateOf(b.id, 'two.jpg')).toBe('paused');
    expect(h.engine!.get(manualRuns)?.state).toBe('paused');

    // During the window: the user pauses root b; a new file of root a is queued and held.
    await m.pauseRoot(b.id);
    await put('a/three.jpg');
    await m.rescanAll();
    expect(stateOf(a.id, 'three.jpg')).toBe('paused');

    // The manager's own timer (≈1 s) ends the window.
    for (let i = 0; i < 100 && stateOf(a.id, 'one.jpg') !== 'queued'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stateOf(a.id, 'one.jpg')).toBe('queued');
    expect(stateOf(a.id, 'three.jpg')).toBe('queued');
    expect(h.engine!.get(manualRuns)?.state).toBe('queued');
    expect(stateOf(b.id, 'two.jpg')).toBe('paused');
    expect(h.engine!.get(manualByHand)?.state).toBe('paused');
    // The user's resume of b resumes its transfers.
    await m.resumeRoot(b.id);
    expect(stateOf(b.id, 'two.jpg')).toBe('queued');
  });
});
