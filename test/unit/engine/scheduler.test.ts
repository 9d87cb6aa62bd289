import { describe, expect, it } from 'vitest';
import { PrioritySemaphore, Scheduler } from '../../../src-main/engine/scheduler';

describe('PrioritySemaphore', () => {
  it('never exceeds its capacity and serves higher priority first, then arrival order', async () => {
    const s = new PrioritySemaphore(1);
    const first = await s.acquire(1, 0);
    const order: string[] = [];
    const low = s.acquire(1, 0).then((r) => {
      order.push('low');
      r();
    });
    const low2 = s.acquire(1, 0).then((r) => {
      order.push('low2');
      r();
    });
    const high = s.acquire(1, 10).then((r) => {
      order.push('high');
      r();
    });
    expect(s.inUse).toBe(1);
    first();
    await Promise.all([low, low2, high]);
    expect(order).toEqual(['high', 'low', 'low2']);
    expect(s.inUse).toBe(0);
  });

  it('counts amounts (bytes in flight) and lets an oversized request run alone', async () => {
    const s = new PrioritySemaphore(10);
    const a = await s.acquire(6);
    let bGot = false;
    const b = s.acquire(6).then((r) => {
      bGot = true;
      return r;
    });
    await Promise.resolve();
    expect(bGot).toBe(false);
    a();
    const rb = await b;
    expect(s.inUse).toBe(6);
    rb();
    const big = await s.acquire(50);
    expect(s.inUse).toBe(50);
    big();
    big(); // a second release is ignored
    expect(s.inUse).toBe(0);
  });

  it('an aborted wait holds nothing', async () => {
    const s = new PrioritySemaphore(1);
    const r = await s.acquire();
    const ac = new AbortController();
    const p = s.acquire(1, 0, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    r();
    expect(s.inUse).toBe(0);
    (await s.acquire())();
  });

  it('grows capacity live', async () => {
    const s = new PrioritySemaphore(1);
    await s.acquire();
    const p = s.acquire();
    s.setCapacity(2);
    await p;
    expect(s.inUse).toBe(2);
  });
});

describe('Scheduler', () => {
  it('validates limits', () => {
    expect(() => new Scheduler({ maxBlocks: 0 })).toThrow(RangeError);
    expect(new Scheduler({ maxFiles: 2 }).limits.maxFiles).toBe(2);
  });

  it('setLimits changes limits live: a waiter is admitted at once, a bad value changes nothing', async () => {
    const s = new Scheduler({ maxBlocks: 1, maxFiles: 2 });
    const first = await s.blocks.acquire();
    const second = s.blocks.acquire();
    s.setLimits({ maxBlocks: 2, maxBlocksPerFile: 3 });
    const release = await second;
    expect(s.blocks.inUse).toBe(2);
    expect(s.limits).toMatchObject({ maxBlocks: 2, maxBlocksPerFile: 3, maxFiles: 2 });
    expect(() => s.setLimits({ maxFiles: 0, maxBlocks: 5 })).toThrow(RangeError);
    expect(s.limits).toMatchObject({ maxBlocks: 2, maxFiles: 2 });
    // Lowered below what is held: nothing is taken back, nothing new is admitted until below it.
    s.setLimits({ maxBlocks: 1 });
    const third = s.blocks.acquire();
    first();
    release();
    await third;
    expect(s.blocks.inUse).toBe(1);
  });
});

describe('Scheduler: the small files window is full when the engine runs as many files as it may', () => {
  /** Form requests sent 600 a second, each answered 50 ms later (30 out at a time, under the 32 small files); the window's peak factor. */
  function run(s: Scheduler, seconds: number): number {
    let t = 0;
    const clock = () => t;
    const out: { due: number; done: (replied: boolean) => void }[] = [];
    while (t < seconds * 1000) {
      t += 1000 / 600;
      while (out.length > 0 && out[0]!.due <= t) out.shift()!.done(true);
      out.push({ due: t + 50, done: s.sending('form', clock) });
    }
    return s.window!.estimate('form').peakFactor;
  }

  it('probes while the engine runs filesAtOnce files, though fewer form requests are out', () => {
    const s = new Scheduler();
    const running = s.filesAtOnce;
    s.runningFiles = () => running;
    expect(run(s, 2)).toBeGreaterThan(1);
  });

  it('does not probe while the engine runs fewer files than it may (nothing waits)', () => {
    const s = new Scheduler();
    const running = s.filesAtOnce - 1;
    s.runningFiles = () => running;
    expect(run(s, 2)).toBe(1);
  });
});
