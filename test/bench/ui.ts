/**
 * The UI benchmark of issue 10 (section `ui` of `npm run bench`), on the fixture page
 * (test/e2e/fixture-app: the real renderer over a fixture service) in headless Chromium.
 *
 * 1. Scroll: the Transfers screen with 50,000 rows, its list scrolled from a
 *    requestAnimationFrame loop at a constant speed for a few seconds (the fixture's own
 *    progress feed running). Two figures per frame: the interval between two rAF callbacks
 *    (`ui_scroll_frame_*`: what the screen shows; one vsync is 16.7 ms, a dropped frame
 *    makes it 33 ms) and the frame's main-thread work (`ui_scroll_work_*`: from the rAF
 *    callback to the first task after that frame's rendering, React's scroll render included).
 * 2. Progress: 50,000 rows of which the 10,000 newest are uploading; this process plays the
 *    service and pushes a transfers batch every 100 ms (10 a second, the service's ceiling)
 *    with the progress of all 10,000, as JSON text the page parses (as the headless door's
 *    bridge does), for ~10 s. Figures from CDP Performance.getMetrics: the main thread's busy
 *    fraction (TaskDuration delta / wall time) and JSHeapUsedSize (peak while pushing, and
 *    after a forced GC). The heap includes the fixture service's own 50,000 rows, which the
 *    real renderer does not hold (they live in the service process): an overestimate.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { CDPSession, Page } from 'playwright-core';
import type { AppEvents, TransferTotals } from '../../src-main/shared/contract';
import { startFixturePage } from '../e2e/fixture-page';

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
 * the page lacks): scrolls the list from rAF for __MS__ at __SPEED__ px/s, resolves to each frame's
 * interval and work time.
 */
const SCROLL_IN_PAGE = `new Promise((resolve) => {
  const el = document.querySelector('.transfer-scroll');
  const intervals = [];
  const work = [];
  const channel = new MessageChannel();
  let frameStart = 0;
  channel.port1.onmessage = () => work.push(performance.now() - frameStart);
  let first = 0;
  let last = 0;
  function frame(now) {
    frameStart = performance.now();
    if (!first) first = now;
    else intervals.push(now - last);
    last = now;
    el.scrollTop = ((now - first) / 1000) * __SPEED__;
    channel.port2.postMessage(0);
    if (now - first < __MS__) requestAnimationFrame(frame);
    else setTimeout(() => resolve({ intervals, work }), 50);
  }
  requestAnimationFrame(frame);
})`;

function scrollInPage(page: Page, ms: number): Promise<{ intervals: number[]; work: number[] }> {
  return page.evaluate(SCROLL_IN_PAGE.replace('__MS__', String(ms)).replace('__SPEED__', String(SCROLL_SPEED)));
}

async function scrollBench(page: Page): Promise<Record<string, number>> {
  // A short warm-up (first pages fetched, code compiled), then the measured run from the top.
  await scrollInPage(page, 500);
  await page.evaluate("document.querySelector('.transfer-scroll').scrollTo(0, 0)");
  await page.waitForTimeout(500);
  const cpuBefore = rendererMainCpu();
  const wallStart = Date.now();
  const { intervals, work } = await scrollInPage(page, SCROLL_MS);
  const cpu = busiestDelta(cpuBefore, rendererMainCpu()) / ((Date.now() - wallStart) / 1000);
  const iv = [...intervals].sort((a, b) => a - b);
  const wk = [...work].sort((a, b) => a - b);
  const [rowsNow, shown] = await page.evaluate<[number, string]>(
    "[document.querySelectorAll('.transfer-scroll [role=row]').length, document.querySelector('.transfer-scroll [data-state] .name')?.textContent]",
  );
  // A scroll that did not move, or rows still loading, would make cheap frames: show where it ended.
  process.stderr.write(`ui: scrolled ${intervals.length} frames, ${rowsNow} rows in the DOM, first shown ${shown}\n`);
  return {
    ui_scroll_load1: os.loadavg()[0]!,
    ui_scroll_frames: intervals.length,
    ui_scroll_frame_p50_ms: percentile(iv, 50),
    ui_scroll_frame_p95_ms: percentile(iv, 95),
    ui_scroll_frame_p99_ms: percentile(iv, 99),
    ui_scroll_frames_over_17ms_pct: (100 * intervals.filter((x) => x > 17.5).length) / Math.max(1, intervals.length),
    ui_scroll_main_cpu_pct: 100 * cpu,
    ui_scroll_work_p50_ms: percentile(wk, 50),
    ui_scroll_work_p95_ms: percentile(wk, 95),
    ui_scroll_work_p99_ms: percentile(wk, 99),
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

/** Linux clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux this runs on). */
const TICKS = 100;

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
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
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
      const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(pid, (Number(f[11]) + Number(f[12])) / TICKS);
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

async function progressBench(page: Page, cdp: CDPSession): Promise<Record<string, number>> {
  await page.evaluate('window.fixtureFeed.stop()');
  await page.waitForTimeout(1000);
  const before = await metrics(cdp);
  const cpuBefore = rendererMainCpu();
  const started = Date.now();
  let sent = 0;
  let bytes = 0;
  let peakHeap = before.JSHeapUsedSize ?? 0;
  while (Date.now() - started < FEED_MS) {
    const due = started + sent * BATCH_MS;
    const json = batch(sent);
    bytes = json.length;
    await page.evaluate(
      (s) => (globalThis as unknown as { fixtureFeed: { push(s: string): void } }).fixtureFeed.push(s),
      json,
    );
    sent++;
    if (sent % 10 === 0) peakHeap = Math.max(peakHeap, (await metrics(cdp)).JSHeapUsedSize ?? 0);
    // Never faster than one batch per 100 ms; a late batch is not made up for (the service skips too).
    const wait = due + BATCH_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const after = await metrics(cdp);
  const cpu = busiestDelta(cpuBefore, rendererMainCpu());
  const wall = after.Timestamp! - before.Timestamp!;
  await cdp.send('HeapProfiler.collectGarbage');
  const gc = await metrics(cdp);
  const shown = await page.evaluate<string>("document.querySelector('.transfer-scroll [data-state]').textContent");
  process.stderr.write(`ui: ${sent} batches of ${ACTIVE} in ${wall.toFixed(1)} s; first row: ${shown.slice(0, 80)}\n`);
  return {
    ui_progress_load1: os.loadavg()[0]!,
    ui_progress_active: ACTIVE,
    ui_progress_batches_per_s: sent / wall,
    ui_progress_batch_kib: bytes / 1024,
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
  try {
    const results: Record<string, number> = {};
    const page = await fixture.open({ rows: ROWS });
    await page.locator('.transfer-scroll [data-state]').first().waitFor();
    const scrollCdp = await page.context().newCDPSession(page);
    Object.assign(results, await profiled(scrollCdp, 'scroll', () => scrollBench(page)));
    await page.context().close();

    const busy = await fixture.open({ rows: ROWS });
    await busy.goto(`${busy.url().split('?')[0]}?rows=${ROWS}&active=${ACTIVE}`);
    await busy.locator('.transfer-scroll [data-state=uploading]').first().waitFor();
    const cdp = await busy.context().newCDPSession(busy);
    await cdp.send('Performance.enable');
    Object.assign(results, await profiled(cdp, 'progress', () => progressBench(busy, cdp)));
    return results;
  } finally {
    await fixture.close();
  }
}
