import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/**
 * The real limiter on vitest's fake clock: its default clock (performance.now) and its
 * timers move only when the test advances them, so the rate it lets through is measured
 * exactly, whatever the machine is doing. The engine shares one of these across all its
 * uploads (upload-resources.ts), and every chunk and form upload takes from it before it
 * is sent (block-upload.ts, form-upload.ts).
 */
describe('BandwidthLimiter rate, on a controlled clock', () => {
  // 4,096,000 B/s and 256 KiB chunks: each reservation is 64 ms, a whole number of clock ms.
  const LIMIT = 4_096_000;
  const CHUNK = 256 * 1024;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Senders that take a chunk, spend `sendMs` sending it, and take the next, until stopped. */
  function greedySenders(l: BandwidthLimiter, count: number, sendMs: number) {
    const grants: Array<{ t: number; bytes: number }> = [];
    let stopped = false;
    const loops = Array.from({ length: count }, async () => {
      while (!stopped) {
        try {
          await l.take(CHUNK);
        } catch {
          return; // closed
        }
        grants.push({ t: performance.now(), bytes: CHUNK });
        await new Promise((r) => setTimeout(r, sendMs));
      }
    });
    return {
      grants,
      stop: async () => {
        stopped = true;
        l.close();
        await vi.runAllTimersAsync();
        await Promise.all(loops);
      },
    };
  }

  /** Bytes per second let through from the first grant at or after `fromMs` to the last before `toMs`. */
  function rateOf(grants: Array<{ t: number; bytes: number }>, fromMs: number, toMs: number): number {
    const inWindow = grants.filter((g) => g.t >= fromMs && g.t < toMs);
    const first = inWindow[0]!;
    const last = inWindow[inWindow.length - 1]!;
    // Bytes granted after the first grant, over the time they took.
    const bytes = inWindow.slice(1).reduce((a, g) => a + g.bytes, 0);
    return (bytes * 1000) / (last.t - first.t);
  }

  it('three senders sharing it get at least 0.9 of the limit together and never more than it', async () => {
    const l = new BandwidthLimiter(LIMIT);
    const run = greedySenders(l, 3, 20);
    await vi.advanceTimersByTimeAsync(10_000);
    await run.stop();
    const rate = rateOf(run.grants, 0, 10_000);
    expect(rate).toBeGreaterThanOrEqual(LIMIT * 0.9);
    expect(rate).toBeLessThanOrEqual(LIMIT);
    // Over the whole run, the start included: at most the limit plus the burst and one chunk.
    const total = run.grants.filter((g) => g.t < 10_000).reduce((a, g) => a + g.bytes, 0);
    expect(total).toBeLessThanOrEqual(LIMIT * 10 + LIMIT * 0.1 + CHUNK);
  });

  it('a limit changed while senders wait holds from the change on: at least 0.9 of it, never more', async () => {
    const l = new BandwidthLimiter(LIMIT);
    const run = greedySenders(l, 3, 20);
    await vi.advanceTimersByTimeAsync(5_000);
    const changedAt = performance.now();
    l.setRate(LIMIT / 4);
    await vi.advanceTimersByTimeAsync(10_000);
    l.setRate(LIMIT * 2);
    await vi.advanceTimersByTimeAsync(5_000);
    await run.stop();
    for (const [from, to, limit] of [
      [0, changedAt, LIMIT],
      [changedAt, changedAt + 10_000, LIMIT / 4],
      [changedAt + 10_000, changedAt + 15_000, LIMIT * 2],
    ] as const) {
      const rate = rateOf(run.grants, from, to);
      expect(rate).toBeGreaterThanOrEqual(limit * 0.9);
      expect(rate).toBeLessThanOrEqual(limit);
    }
  });

  it('waits that abort give their time back: the one behind them starts when it would have without them', async () => {
    const l = new BandwidthLimiter(LIMIT, { burstMs: 0 });
    await l.take(CHUNK); // the link is busy for 64 ms
    const paused = new AbortController();
    // Four chunks of a transfer that is then paused: 64 ms each, reserved behind the first.
    const gone = Array.from({ length: 4 }, () => l.take(CHUNK, paused.signal).catch(() => 'aborted'));
    let grantedAt: number | undefined;
    const next = l.take(CHUNK).then(() => (grantedAt = performance.now()));
    paused.abort(new Error('paused'));
    expect(await Promise.all(gone)).toEqual(['aborted', 'aborted', 'aborted', 'aborted']);
    await vi.advanceTimersByTimeAsync(1_000);
    await next;
    // Right after the first chunk's 64 ms, not after the 5 × 64 ms the aborted ones had reserved.
    expect(grantedAt).toBe(64);
    l.close();
  });

  it('pausing and resuming fifteen times in a row costs the senders no more than the chunks they sent', async () => {
    const l = new BandwidthLimiter(LIMIT, { burstMs: 0 });
    const run = greedySenders(l, 3, 20);
    await vi.advanceTimersByTimeAsync(1_000);
    // A transfer paused and resumed quickly: each time, its waiting chunks' reservations are aborted.
    for (let i = 0; i < 15; i++) {
      const ac = new AbortController();
      const waits = Array.from({ length: 4 }, () => l.take(CHUNK, ac.signal).catch(() => undefined));
      await vi.advanceTimersByTimeAsync(5);
      ac.abort(new Error('paused'));
      await Promise.all(waits);
    }
    const from = performance.now();
    await vi.advanceTimersByTimeAsync(5_000);
    await run.stop();
    // The senders go on at the limit at once: no reserved time of the aborted waits is left to wait out.
    const firstAfter = run.grants.find((g) => g.t >= from)!;
    expect(firstAfter.t - from).toBeLessThanOrEqual(64);
    expect(rateOf(run.grants, from, from + 5_000)).toBeGreaterThanOrEqual(LIMIT * 0.9);
  });
});
