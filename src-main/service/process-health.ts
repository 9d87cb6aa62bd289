import { startLoopWatch } from '../base/loop-watch';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { ProcessHealth } from '../shared/contract';

/** How long one window of event-loop delays lasts; a snapshot covers the last one or two. */
export const HEALTH_WINDOW_MS = 60_000;

/**
 * The main process's health as `app.status` reports it: event-loop delay (p50, p99, max, in
 * milliseconds, over the last one to two minutes) and memory. One monitor per process,
 * started on first use; its window timer does not keep the process alive.
 */
class HealthMonitor {
  /** Two monitors, reset in turn every window: the older one always covers one to two windows. */
  private readonly monitors: Array<{ h: IntervalHistogram; since: number }>;
  private next = 0;

  constructor() {
    const t = performance.now();
    this.monitors = [0, 1].map(() => {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      return { h, since: t };
    });
    setInterval(() => this.rotate(), HEALTH_WINDOW_MS).unref();
  }

  private rotate(): void {
    const m = this.monitors[this.next]!;
    m.h.reset();
    m.since = performance.now();
    this.next = 1 - this.next;
  }

  snapshot(): ProcessHealth {
    const { h, since } = this.monitors[this.next]!;
    const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;
    const mem = process.memoryUsage();
    const samples = h.count > 0;
    return {
      eventLoopDelayMs: {
        p50: samples ? ms(h.percentile(50)) : 0,
        p99: samples ? ms(h.percentile(99)) : 0,
        max: samples ? ms(h.max) : 0,
      },
      windowMs: Math.round(performance.now() - since),
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
    };
  }
}

let monitor: HealthMonitor | undefined;

/** Starts measuring (idempotent); call when a service opens so the first status has data. */
export function startHealthMonitor(): void {
  monitor ??= new HealthMonitor();
  startLoopWatch();
}

/** The process's health now. */
export function processHealth(): ProcessHealth {
  startHealthMonitor();
  return monitor!.snapshot();
}
