import { describe, expect, it } from 'vitest';
import { InFlightWindow } from '../../../src-main/engine/window';

/**
 * Drives a window with replies as a link would give them: `rate(factor)` replies a second
 * for the window's factor now, each `rttMs` after its request; returns the factors seen.
 */
function drive(
  w: InFlightWindow,
  opts: { seconds: number; rttMs: number; rate: (factor: number, tMs: number) => number; full?: boolean },
): number[] {
  const seen: number[] = [];
  let t = 0;
  while (t < opts.seconds * 1000) {
    t += 1000 / opts.rate(w.factor('block'), t);
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

  it('reaches its widest within a second on a 50 ms link that only waits (a short batch gets it)', () => {
    const w = new InFlightWindow();
    // 32 small files in flight, 50 ms each: 640 × factor replies a second.
    const t = { ms: 0 };
    const seen: [number, number][] = [];
    while (t.ms < 1000) {
      t.ms += 1000 / ((32 * w.factor('form')) / 0.05);
      w.observe('form', 50, t.ms, true);
      seen.push([t.ms, w.factor('form')]);
    }
    // The first period (250 ms) is measured only; then each period doubles the window while it pays.
    expect(seen.find(([, f]) => f > 1)![0]).toBeLessThan(600);
    expect(w.factor('form')).toBe(4);
  });

  it("does not count replies to requests sent before a step in that step's period", () => {
    const w = new InFlightWindow();
    let t = 0;
    const reply = (rttMs: number) => w.observe('form', rttMs, t, true);
    // 32 in flight, 50 ms each: 640 replies a second, until the first step.
    while (w.factor('form') === 1) {
      t += 1000 / 640;
      reply(50);
    }
    const stepAt = t;
    // For 400 ms replies come slower, to requests sent before the step (a server draining
    // what it had): they say nothing of the new window.
    while (t < stepAt + 400) {
      t += 1000 / 400;
      reply(t - stepAt + 5);
    }
    // Then the doubled window's replies, at twice the rate.
    while (t < stepAt + 700) {
      t += 1000 / 1280;
      reply(50);
    }
    expect(w.factor('form')).toBeGreaterThanOrEqual(2);
  });

  it('takes a step back when the rate does not rise (the service is the limit), then stays', () => {
    const w = new InFlightWindow({ blocks: true });
    const seen = drive(w, { seconds: 20, rttMs: 60, rate: () => 100 });
    // The start's doubling once, then a ×1.5 probe after each hold, each taken back.
    expect(new Set(seen)).toEqual(new Set([1, 2, 1.5]));
    expect(seen.filter((f, i) => f === 2 && seen[i - 1] !== 2)).toHaveLength(1);
    expect(w.estimate('block').peakFactor).toBe(2);
  });

  it('keeps the steps that paid when the rate levels off', () => {
    const w = new InFlightWindow({ blocks: true });
    // The link carries at most 300 replies a second: 8 × 2 / 0.06 = 267 pays, 4 (300) and 3 (300) do not.
    const seen = drive(w, { seconds: 30, rttMs: 60, rate: (f) => Math.min(300, (8 * f) / 0.06) });
    expect(w.factor('block')).toBe(2);
    expect(new Set(seen)).toEqual(new Set([1, 2, 4, 3]));
  });

  it('after the start, takes a step back that paid in one period and not the next', () => {
    const w = new InFlightWindow({ blocks: true });
    // The link stops at 200 replies a second, so the start ends at 2 (4 does not pay). The
    // first probe to 3 meets a link carrying 300 for its first period only (300 ms), then 200.
    let probeAt: number | undefined;
    const seen = drive(w, {
      seconds: 10,
      rttMs: 60,
      rate: (f, t) => {
        if (f === 3 && probeAt === undefined) probeAt = t;
        const burst = probeAt !== undefined && t - probeAt < 300;
        return Math.min(burst ? 300 : 200, (8 * f) / 0.06);
      },
    });
    const at3 = seen.indexOf(3);
    expect(at3).toBeGreaterThan(0);
    // The step paid once: it is not kept (the next factor is 2 again, not ×1.5 more).
    expect(seen.slice(at3).find((f) => f !== 3)).toBe(2);
  });

  it('takes back a step not yet measured when the replies pause (the next batch starts from what paid)', () => {
    const w = new InFlightWindow();
    let t = 0;
    while (w.factor('form') === 1) {
      t += 1000 / 640;
      w.observe('form', 50, t, true);
    }
    expect(w.factor('form')).toBe(2);
    // The batch ends; the next one starts a second later.
    t += 1000;
    expect(w.observe('form', 50, t, true)).toBe(true);
    expect(w.factor('form')).toBe(1);
  });

  it('after a step that failed, probes by ×1.5 and keeps a step on two periods that paid', () => {
    const w = new InFlightWindow({ blocks: true });
    // 250 replies a second at most for 5 s (the start stops at 2), then the link widens.
    const seen = drive(w, {
      seconds: 30,
      rttMs: 60,
      rate: (f, t) => (t < 5000 ? Math.min(250, (8 * f) / 0.06) : (8 * f) / 0.06),
    });
    expect(seen).toContain(3);
    expect(w.factor('block')).toBe(4);
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
