/**
 * The UI benchmark of issue 10 (section `ui` of `npm run bench`), on the fixture page
 * (test/e2e/fixture-app: the real renderer over a fixture service) in headless Chromium.
 *
 * 1. Scroll: the Transfers screen with 50,000 rows, its list scrolled from a requestAnimationFrame
 *    loop at a constant speed for a few seconds (the fixture's own progress feed running), twice:
 *    - untraced, for the interval between two rAF callbacks (`ui_scroll_frame_*`: what the
 *      screen shows; one vsync is 16.7 ms, a dropped frame makes it 33 ms);
 *    - traced, for the main thread's CPU time per frame (`ui_scroll_cpu_*`, ui-trace.ts). On a
 *      loaded machine the first measures how long the renderer waits for a core as much as
 *      the app; the second is the app's own work per frame, which fits in a frame when a core
 *      is free if it is under 16.7 ms.
 * 2. Progress: 50,000 rows of which the 10,000 newest are uploading; this process plays the
 *    headless door: over a real WebSocket (ui-feed.ts) to the page's real WebSocket bridge, it
 *    pushes a transfers batch every 100 ms (10 a second, the service's ceiling) with the
 *    progress of all 10,000, for ~10 s. Figures: the main thread's busy fraction (CDP's
 *    TaskDuration delta / wall time, and its CPU time from /proc / wall time), and
 *    JSHeapUsedSize (peak while pushing, and after a forced GC). The heap includes the fixture
 *    service's own 50,000 rows, which the real renderer does not hold (they live in the
 *    service process): an overestimate.
 * Targets are in targets.ts (the scroll p95 read as one 60 Hz frame: see there). run.ts gets
 * Chromium with ensureTestBrowser() before this section, or skips it saying why.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { CDPSession, Page } from 'playwright-core';
import type { AppEvents, TransferTotals } from '../../src-main/shared/contract';
import { startFixturePage } from '../e2e/fixture-page';
import { startFeed, type Feed } from './ui-feed';
import { traced } from './ui-trace';
import { cpuSeconds, parentPid } from '../helpers/proc-cpu';

const ROWS = 50_000;
const ACTIVE = Number(process.env.BENCH_UI_ACTIVE ?? 10_000);
const SCROLL_MS = Number(process.env.BENCH_UI_SCROLL_MS ?? 5000);
/** Pixels a second: about 125 rows of 48 px, a fast continuous scroll. */
const SCROLL_SPEED = 6000;
const FEED_MS = Number(process.env.BENCH_UI_FEED_MS ?? 10_000);
const BATCH_MS = 100;
const MiB = 1024 * 1024;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

/**
 * Runs in the page (as text: the TypeScript loader would wrap named inner functions in a helper
 * the page lacks): scrolls the list from rAF for __MS__, resolves to the intervals between
 * frames. By time (__STEP__ 0): at __SPEED__ px/s, what a person sees, late frames jumping
 * further. By frame: __STEP__ px each frame whatever its lateness, so every frame brings the
 * same rows into view and its work does not grow with the machine's load.
 */
const SCROLL_IN_PAGE = `new Promise((resolve) => {
  const el = document.querySelector('.transfer-scroll');
  const intervals = [];
  let first = 0;
  let last = 0;
  function frame(now) {
    if (!first) first = now;
    else intervals.push(now - last);
    last = now;
    el.scrollTop = __STEP__ ? el.scrollTop + __STEP__ : ((now - first) / 1000) * __SPEED__;
    if (now - first < __MS__) requestAnimationFrame(frame);
    else setTimeout(() => resolve(intervals), 50);
  }
  requestAnimationFrame(frame);
})`;

/** Scrolls from the top for `ms`; `step`: pixels per frame instead of by time. */
async function scrollInPage(page: Page, ms: number, step = 0): Promise<number[]> {
  await page.evaluate("document.querySelector('.transfer-scroll').scrollTo(0, 0)");
  // Back at the top: let its rows render and their pages arrive before the clock starts.
  await page.locator('.transfer-scroll [data-state]').first().waitFor();
  await page.waitForTimeout(500);
  return page.evaluate(
    SCROLL_IN_PAGE.replace('__MS__', String(ms))
      .replace('__SPEED__', String(SCROLL_SPEED))
      .replaceAll('__STEP__', String(step)),
  );
}

const sortedCopy = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function scrollBench(page: Page): Promise<Record<string, number>> {
  // A short warm-up (first pages fetched, code compiled), then the measured runs from the top.
  await scrollInPage(page, 500);
  const cpuBefore = rendererMainCpu();
  const wallStart = Date.now();
  const intervals = await scrollInPage(page, SCROLL_MS);
  const cpu = busiestDelta(cpuBefore, rendererMainCpu()) / ((Date.now() - wallStart) / 1000);
  const load = os.loadavg()[0]!;
  const [rowsNow, shown] = await page.evaluate<[number, string]>(
    "[document.querySelectorAll('.transfer-scroll [role=row]').length, document.querySelector('.transfer-scroll [data-state] .name')?.textContent]",
  );
  // A scroll that did not move, or rows still loading, would make cheap frames: show where it ended.
  process.stderr.write(`ui: scrolled ${intervals.length} frames, ${rowsNow} rows in the DOM, first shown ${shown}\n`);
  // The same speed at 60 frames a second, by frame: the CPU of a frame that scrolls 100 px.
  const { frames } = await traced(page, () => scrollInPage(page, SCROLL_MS, SCROLL_SPEED / 60));
  const iv = sortedCopy(intervals);
  const fc = sortedCopy(frames.cpuMs);
  return {
    ui_scroll_load1: load,
    ui_scroll_frames: intervals.length,
    ui_scroll_frame_p50_ms: percentile(iv, 50),
    ui_scroll_frame_p95_ms: percentile(iv, 95),
    ui_scroll_frame_p99_ms: percentile(iv, 99),
    ui_scroll_frames_over_17ms_pct: (100 * intervals.filter((x) => x > 17.5).length) / Math.max(1, intervals.length),
    ui_scroll_main_cpu_pct: 100 * cpu,
    ui_scroll_traced_frames: frames.cpuMs.length,
    ui_scroll_cpu_p50_ms: percentile(fc, 50),
    ui_scroll_cpu_p95_ms: percentile(fc, 95),
    ui_scroll_cpu_p99_ms: percentile(fc, 99),
    ui_scroll_cpu_max_ms: fc[fc.length - 1] ?? NaN,
    ui_scroll_traced_busy_pct: 100 * frames.busyFraction,
    ui_scroll_traced_load1: os.loadavg()[0]!,
  };
}

function batch(tick: number): string {
  const progress: AppEvents['transfers']['progress'] = [];
  for (let i = 0; i < ACTIVE; i++) {
    const bytesDone = Math.min(GiB, (tick + 1) * 256 * 1024 + i);
    progress.push({
      id: ROWS - i,
      bytesDone,
      size: GiB,
      speed: 2.5 * MiB,
      etaSeconds: Math.round((GiB - bytesDone) / (2.5 * MiB)),
    });
  }
  const totals: TransferTotals = {
    queued: 0,
    hashing: 0,
    uploading: ACTIVE,
    paused: 0,
    completing: 0,
    done: ROWS - ACTIVE,
    failed: 0,
    canceled: 0,
    skipped: 0,
  };
  const payload: AppEvents['transfers'] = {
    changed: [],
    removed: [],
    progress,
    totals,
    throughput: ACTIVE * 2.5 * MiB,
  };
  return JSON.stringify(payload);
}
const GiB = 1024 * MiB;

/**
 * CPU seconds of the main thread (the thread whose id is the process id) of every Chromium
 * renderer started by this process, by pid. Unlike TaskDuration (wall time of tasks), CPU time
 * does not grow when the busy machine makes the thread wait for a core.
 */
function rendererMainCpu(): Map<number, number> {
  const parent = new Map<number, number>();
  const renderers: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      parent.set(pid, parentPid(pid));
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(pid);
    } catch {
      // The process ended while being read.
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  const cpu = new Map<number, number>();
  for (const pid of renderers.filter(ours)) {
    try {
      cpu.set(pid, cpuSeconds(pid, pid));
    } catch {
      // Ended.
    }
  }
  return cpu;
}

/** The largest CPU delta between two readings: the renderer of the page being measured. */
function busiestDelta(before: Map<number, number>, after: Map<number, number>): number {
  let best = 0;
  for (const [pid, v] of after) best = Math.max(best, v - (before.get(pid) ?? 0));
  return best;
}

/** With BENCH_UI_PROFILE=<prefix>, a CPU profile of the page is written to <prefix>-<name>.cpuprofile. */
async function profiled<T>(cdp: CDPSession, name: string, run: () => Promise<T>): Promise<T> {
  const prefix = process.env.BENCH_UI_PROFILE;
  if (!prefix) return run();
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  const result = await run();
  const { profile } = await cdp.send('Profiler.stop');
  writeFileSync(`${prefix}-${name}.cpuprofile`, JSON.stringify(profile));
  return result;
}

async function progressBench(page: Page, cdp: CDPSession, feed: Feed): Promise<Record<string, number>> {
  await page.waitForTimeout(1000);
  const before = await metrics(cdp);
  const cpuBefore = rendererMainCpu();
  let peakHeap = before.JSHeapUsedSize ?? 0;
  let ticks = 0;
  const run = await feed.run({
    forMs: FEED_MS,
    everyMs: BATCH_MS,
    batch,
    onTick: async () => {
      if (++ticks % 10 === 0) peakHeap = Math.max(peakHeap, (await metrics(cdp)).JSHeapUsedSize ?? 0);
    },
  });
  const after = await metrics(cdp);
  const cpu = busiestDelta(cpuBefore, rendererMainCpu());
  const wall = after.Timestamp! - before.Timestamp!;
  const load = os.loadavg()[0]!;
  await cdp.send('HeapProfiler.collectGarbage');
  const gc = await metrics(cdp);
  const shown = await page.evaluate<string>(
    "document.querySelector('.transfer-scroll [data-state=uploading] [role=progressbar]').getAttribute('aria-valuetext')",
  );
  process.stderr.write(
    `ui: ${run.sent} batches of ${ACTIVE} sent (${run.skipped} skipped) in ${wall.toFixed(1)} s; first row: ${shown}\n`,
  );
  return {
    ui_progress_load1: load,
    ui_progress_active: ACTIVE,
    ui_progress_batches_per_s: run.sent / wall,
    ui_progress_batches_skipped: run.skipped,
    ui_progress_batch_kib: run.frameBytes / 1024,
    ui_progress_main_busy_pct: (100 * (after.TaskDuration! - before.TaskDuration!)) / wall,
    ui_progress_main_cpu_pct: (100 * cpu) / wall,
    ui_progress_script_pct: (100 * (after.ScriptDuration! - before.ScriptDuration!)) / wall,
    ui_progress_layout_style_pct:
      (100 *
        (after.LayoutDuration! - before.LayoutDuration! + after.RecalcStyleDuration! - before.RecalcStyleDuration!)) /
      wall,
    ui_progress_heap_peak_mib: Math.max(peakHeap, after.JSHeapUsedSize ?? 0) / MiB,
    ui_progress_heap_after_gc_mib: (gc.JSHeapUsedSize ?? 0) / MiB,
  };
}

/** Both parts; returns flat numeric figures for bench/results. */
export async function runUiBench(): Promise<Record<string, number>> {
  const fixture = await startFixturePage();
  const feed = await startFeed();
  try {
    const results: Record<string, number> = {};
    const page = await fixture.open({ rows: ROWS });
    await page.locator('.transfer-scroll [data-state]').first().waitFor();
    const scrollCdp = await page.context().newCDPSession(page);
    Object.assign(results, await profiled(scrollCdp, 'scroll', () => scrollBench(page)));
    await page.context().close();

    const busy = await fixture.open({ rows: ROWS, params: { active: ACTIVE, feed: feed.url } });
    await busy.locator('.transfer-scroll [data-state=uploading]').first().waitFor();
    await feed.subscribed;
    const cdp = await busy.context().newCDPSession(busy);
    await cdp.send('Performance.enable');
    Object.assign(results, await profiled(cdp, 'progress', () => progressBench(busy, cdp, feed)));
    return results;
  } finally {
    await feed.close();
    await fixture.close();
  }
}
