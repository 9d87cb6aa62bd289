/**
 * The renderer main thread's CPU per frame, from a Chromium trace (test/bench/ui.ts).
 *
 * On a loaded machine the interval between two frames measures how long the renderer waited
 * for a core as much as its own work. The trace gives, for each task of the main thread, its
 * thread time (`tdur`: CPU time, which does not grow while the thread waits). A frame here is
 * the span from the task that runs one requestAnimationFrame callback to the task that runs
 * the next; its CPU is the thread time of every task that starts in it (the rAF callback, the
 * React render, style, layout, paint, garbage collection, and anything else the thread did).
 * A frame whose CPU is under one vsync (16.7 ms) fits in a frame when a core is free.
 */
import type { Browser, Page } from 'playwright-core';

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  /** Microseconds. */
  ts: number;
  dur?: number;
  /** Thread (CPU) time of a complete event, microseconds. */
  tdur?: number;
  args?: { name?: string };
}

export interface FrameCpu {
  /** CPU time of the main thread per frame, ms, in frame order. */
  cpuMs: number[];
  /** Wall time of each frame (rAF task to the next rAF task), ms. */
  wallMs: number[];
  /** CPU of the main thread over all the frames / their wall time. */
  busyFraction: number;
}

/**
 * The categories the analysis needs: the scheduler's top-level tasks with their thread time, and
 * rAF callbacks; the timeline's detailed category is left out (it costs the renderer CPU too).
 */
export const TRACE_CATEGORIES = ['toplevel', 'devtools.timeline'];
const TASK = 'ThreadControllerImpl::RunTask';

const key = (e: { pid: number; tid: number }) => `${e.pid}:${e.tid}`;

/** Per-frame CPU of the renderer main thread with the most rAF callbacks (the page scrolled). */
export function frameCpu(events: TraceEvent[]): FrameCpu {
  const mainThreads = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map(key),
  );
  const rafs = new Map<string, number[]>();
  for (const e of events) {
    if (e.name !== 'FireAnimationFrame' || !mainThreads.has(key(e))) continue;
    const list = rafs.get(key(e)) ?? [];
    list.push(e.ts);
    rafs.set(key(e), list);
  }
  const [thread, frames] = [...rafs].sort((a, b) => b[1].length - a[1].length)[0] ?? ['', []];
  // Top-level tasks only: one nested in another (a nested run loop) is in its parent's time already.
  const tasks: TraceEvent[] = [];
  for (const e of events
    .filter((x) => x.name === TASK && x.ph === 'X' && key(x) === thread)
    .sort((a, b) => a.ts - b.ts)) {
    const last = tasks[tasks.length - 1];
    if (!last || e.ts >= last.ts + (last.dur ?? 0)) tasks.push(e);
  }
  // Each frame starts where the task running its rAF callback starts.
  const starts = frames
    .sort((a, b) => a - b)
    .map((ts) => tasks.find((t) => t.ts <= ts && ts <= t.ts + (t.dur ?? 0))?.ts ?? ts);
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  let cpuTotal = 0;
  let next = 0;
  for (let i = 0; i + 1 < starts.length; i++) {
    const [from, to] = [starts[i]!, starts[i + 1]!];
    while (next < tasks.length && tasks[next]!.ts < from) next++;
    let cpu = 0;
    for (; next < tasks.length && tasks[next]!.ts < to; next++) cpu += tasks[next]!.tdur ?? 0;
    cpuMs.push(cpu / 1000);
    wallMs.push((to - from) / 1000);
    cpuTotal += cpu;
  }
  const span = starts.length > 1 ? starts[starts.length - 1]! - starts[0]! : 0;
  return { cpuMs, wallMs, busyFraction: span > 0 ? cpuTotal / span : 0 };
}

/** Runs `work` with Chromium tracing the page, and returns its result and the trace's frames. */
export async function traced<T>(page: Page, work: () => Promise<T>): Promise<{ result: T; frames: FrameCpu }> {
  const browser: Browser = page.context().browser()!;
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await browser.stopTracing();
    throw err;
  }
  const buffer = await browser.stopTracing();
  const parsed = JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return { result, frames: frameCpu(Array.isArray(parsed) ? parsed : parsed.traceEvents) };
}
