import { describe, expect, it } from 'vitest';
import { InFlightWindow } from '../../../src-main/engine/window';

/**
 * Drives a window with replies as a link would give them: `rate(factor)` replies a second
 * for the window's factor now, each `rttMs` after its request; returns the factors seen.
 */
function drive(
  w: InFlightWindow,
  opts: { seconds: number; rttMs: number; rate: (factor: number) => number; full?: boolean },
): number[] {
  const seen: number[] = [];
  let t = 0;
  while (t < opts.seconds * 1000) {
    t += 1000 / opts.rate(w.factor('block'));
    w.observe('block', opts.rttMs, t, opts.full ?? true);
    seen.push(w.factor('block'));
  }
  return seen;
}

describe('InFlightWindow', () => {
  it('grows while the reply rate follows it (a link that only waits), up to maxFactor', () => {
    const w = new InFlightWindow({ blocks: true });
    // 8 requests in flight, 60 ms each: 8 × factor / 0.06 replies a second.
    drive(w, { seconds: 20, rttMs: 60, rate: (f) => (8 * f) / 0.06 });
    expect(w.factor('block')).toBe(4);
    expect(w.factor('form')).toBe(1); // kinds are measured apart
  });

  it('takes a step back when the rate does not rise (the service is the limit), then stays', () => {
    const w = new InFlightWindow({ blocks: true });
    const seen = drive(w, { seconds: 20, rttMs: 60, rate: () => 100 });
    expect(Math.max(...seen)).toBe(1.5); // one probe
    expect(w.factor('block')).toBe(1);
    expect(w.estimate('block').peakFactor).toBe(1.5);
  });

  it('keeps the steps that paid when the rate levels off', () => {
    const w = new InFlightWindow({ blocks: true });
    // The link carries at most 300 replies a second: 8 × 1.5 / 0.06 = 200, 8 × 2.25 / 0.06 = 300.
    drive(w, { seconds: 30, rttMs: 60, rate: (f) => Math.min(300, (8 * f) / 0.06) });
    expect(w.factor('block')).toBe(2.25);
  });

  it('leaves the block count alone unless asked (blocks: false, the default)', () => {
    const w = new InFlightWindow();
    drive(w, { seconds: 20, rttMs: 60, rate: (f) => (8 * f) / 0.06 });
    expect(w.estimate('block').peakFactor).toBe(1);
  });

  it('does not probe below the latency floor (loopback), nor while the window is not full', () => {
    const fast = new InFlightWindow({ blocks: true });
    drive(fast, { seconds: 10, rttMs: 2, rate: (f) => 1000 * f });
    expect(fast.estimate('block').peakFactor).toBe(1);
    const idle = new InFlightWindow({ blocks: true });
    drive(idle, { seconds: 10, rttMs: 60, rate: (f) => (8 * f) / 0.06, full: false });
    expect(idle.estimate('block').peakFactor).toBe(1);
  });
});
