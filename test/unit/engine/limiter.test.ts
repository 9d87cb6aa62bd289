import { describe, expect, it } from 'vitest';
import { BandwidthLimiter } from '../../../src-main/engine/limiter';

/** A clock the test moves; timers still run on real time, so waits are checked by the clock. */
function manualClock() {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('BandwidthLimiter', () => {
  it('lets everything through without a limit', async () => {
    const l = new BandwidthLimiter(null);
    await l.take(1 << 30);
    expect(l.rate).toBeNull();
  });

  it('schedules reservations back to back at the rate (virtual clock)', async () => {
    const c = manualClock();
    const l = new BandwidthLimiter(1000, { now: c.now, burstMs: 0 });
    const order: number[] = [];
    await l.take(100); // starts now, link busy for 100 ms
    const p2 = l.take(100).then(() => order.push(2)); // starts at +100 ms
    const p3 = l.take(50).then(() => order.push(3)); // +200 ms
    await Promise.all([p2, p3]);
    expect(order).toEqual([2, 3]);
    l.close();
  });

  it('keeps the long-run rate: bytes let through over a window ≈ rate × window', async () => {
    const l = new BandwidthLimiter(200_000, { burstMs: 0 });
    const t0 = performance.now();
    let sent = 0;
    while (sent < 100_000) {
      await l.take(10_000);
      sent += 10_000;
    }
    // 100 kB at 200 kB/s: the last reservation starts at 450 ms.
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(440);
  });

  it('re-plans waiting reservations when the rate changes', async () => {
    const l = new BandwidthLimiter(1000, { burstMs: 0 });
    await l.take(100_000); // the next reservation would wait 100 s
    const t0 = performance.now();
    const waiting = l.take(10);
    l.setRate(1_000_000_000);
    await waiting;
    expect(performance.now() - t0).toBeLessThan(1000);
    l.setRate(null);
    await l.take(1 << 30);
  });

  it('an aborted wait rejects with the reason and frees its place', async () => {
    const l = new BandwidthLimiter(1000, { burstMs: 0 });
    await l.take(10_000);
    const ac = new AbortController();
    const p = l.take(10, ac.signal);
    ac.abort(new Error('paused'));
    await expect(p).rejects.toThrow('paused');
    l.close();
  });

  it('refuses a nonsense rate', () => {
    expect(() => new BandwidthLimiter(-5)).toThrow(RangeError);
    expect(() => new BandwidthLimiter(Number.NaN)).toThrow(RangeError);
  });
});
