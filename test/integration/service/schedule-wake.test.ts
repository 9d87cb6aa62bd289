import { afterEach, describe, expect, it } from 'vitest';
import { startWakeDetector } from '../../../src-main/service/wake-detector';
import type { Schedule } from '../../../src-main/sync/schedule';
import { CoreWorld } from './harness';

const MiB = 1024 * 1024;

/** A hand-driven clock and interval: `tick(ms)` advances the clock and runs the check once. */
function fakeTimer(startMs = 1_000_000) {
  let nowMs = startMs;
  let check: (() => void) | undefined;
  let stopped = false;
  return {
    now: () => nowMs,
    every: (fn: () => void) => {
      check = fn;
      return () => {
        stopped = true;
      };
    },
    tick(ms: number) {
      nowMs += ms;
      check?.();
    },
    get stopped() {
      return stopped;
    },
  };
}

describe('wake detector', () => {
  it('calls onWake only when the clock jumped more than interval + gap between two checks', () => {
    const t = fakeTimer();
    const wakes: number[] = [];
    const stop = startWakeDetector({
      onWake: (ms) => wakes.push(ms),
      checkEveryMs: 5000,
      sleepGapMs: 30_000,
      now: t.now,
      every: t.every,
    });
    t.tick(5000);
    t.tick(5100);
    t.tick(35_000); // 30 s late: exactly the gap, not beyond it
    expect(wakes).toEqual([]);
    t.tick(5000 + 3_600_000); // an hour asleep
    expect(wakes).toEqual([3_600_000]);
    t.tick(5000);
    expect(wakes).toHaveLength(1);
    stop();
    expect(t.stopped).toBe(true);
  });
});

describe('schedule and wake through the core', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('settings.setSchedule stores the schedule; the next open applies it; a bad one is refused with its code', async () => {
    w = await CoreWorld.create();
    const core = await w.open({ wakeDetector: false });
    const schedule: Schedule = { outside: { action: 'run', bytesPerSecond: 3 * MiB }, windows: [] };
    expect(core.useCases.settings.setSchedule(schedule)).toEqual({ running: true, bytesPerSecond: 3 * MiB });
    expect(core.engine.bandwidthLimit).toBe(3 * MiB);
    expect(() =>
      core.useCases.settings.setSchedule({
        outside: { action: 'run' },
        windows: [{ startMinute: 60, endMinute: 60, action: 'pause' }],
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid-schedule' }));
    await w.closeCore();

    const again = await w.open({ wakeDetector: false });
    expect(again.useCases.settings.get().schedule).toEqual(schedule);
    expect(again.engine.bandwidthLimit).toBe(3 * MiB);
  });

  it('a jump of the wall clock (the machine slept) rescans every watching root', async () => {
    w = await CoreWorld.create();
    const t = fakeTimer();
    const core = await w.open({ wakeDetector: { now: t.now, every: t.every } });
    const root = await core.watch.addRoot({
      folder: w.folder,
      accountId: core.localAccountId!,
      bucket: 'local',
      options: { stabilityMs: 100 },
    });
    const scans = () =>
      w.events.filter((e) => e.type === 'watch' && e.event.type === 'scan-started' && e.event.rootId === root.id)
        .length;
    await root.whenSettled();
    const before = scans();
    t.tick(5000);
    await root.whenSettled();
    expect(scans()).toBe(before);
    t.tick(10 * 60_000);
    await w.waitFor((e) => e.type === 'watch' && e.event.type === 'scan-finished' && scans() > before, 10_000);
    expect(scans()).toBe(before + 1);
    await w.closeCore();
    expect(t.stopped).toBe(true);
  });
});
