import { appendFileSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * A long-task detector for measurement, off unless `BLOCKLIFT_LOOP_WATCH=<file>` is set in
 * the process's environment (the load section passes it on to serve). A 10 ms watchdog
 * timer notes each turn it came late by more than `LATE_MS`, with the named sections that ran
 * since its previous turn (their wall and CPU time each; `section(name, fn)` wraps a synchronous part
 * that is suspected of holding the loop) and the time no section claims. Each such turn is a
 * line of JSON appended to the file: the measurement that says which task to slice, where a
 * CPU profile cannot split back-to-back tasks. Costs one `performance.now()` pair per
 * section when on, one comparison when off.
 */
const FILE = process.env.BLOCKLIFT_LOOP_WATCH;
const TICK_MS = 10;
const LATE_MS = 50;

interface Ran {
  name: string;
  ms: number;
  /** The process's CPU time (user + system, µs → ms) over the section: on a crowded machine much less than `ms`. */
  cpuMs: number;
}
let ran: Ran[] = [];

/**
 * The main thread's own CPU time and its time waiting for a core, in ms (Linux's
 * /proc/<pid>/task/<pid>/schedstat; undefined elsewhere). What a late gap had of neither was
 * spent blocked: on the disk, a lock, a page fault.
 */
function mainThreadSched(): { cpuMs: number; waitMs: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ');
    return { cpuMs: Number(run) / 1e6, waitMs: Number(wait) / 1e6 };
  } catch {
    return undefined;
  }
}
let started = false;

/**
 * Linux only, beside the watchdog: a thread that looks at the main thread every 2 ms and,
 * for each stretch of 20 ms or more that it spent asleep in the kernel other than waiting
 * for its next event (state D, or S away from epoll), appends to `<file>.kernel` the
 * stretch's length and the kernel stack it slept in (/proc/<pid>/task/<pid>/stack, readable
 * by root): what "blocked" was, the disk's journal, a lock, a sleep. For a read or write
 * it also notes the system call and the file its descriptor names (/proc/<pid>/task/<pid>/syscall
 * and /proc/<pid>/fd), so a wait on the disk says whether it was the database, its log or a
 * user's file.
 */
const KERNEL_WAIT_SOURCE = `
const { readFileSync, appendFileSync, readlinkSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const base = '/proc/' + workerData.pid + '/task/' + workerData.pid + '/';
const idle = /ep_poll|do_epoll_wait/;
const IO = { 0: 'read', 1: 'write', 17: 'pread64', 18: 'pwrite64', 19: 'readv', 20: 'writev', 74: 'fsync', 75: 'fdatasync', 76: 'truncate', 77: 'ftruncate', 257: 'openat', 262: 'newfstatat', 4: 'stat', 5: 'fstat' };
function syscallNow() {
  try {
    const parts = readFileSync(base + 'syscall', 'utf8').trim().split(' ');
    const name = IO[Number(parts[0])];
    if (!name) return { syscall: parts[0] };
    let file = '';
    if (name !== 'openat' && name !== 'stat' && name !== 'newfstatat') {
      try { file = readlinkSync('/proc/' + workerData.pid + '/fd/' + Number(parts[1])); } catch {}
    }
    return { syscall: name, file };
  } catch { return {}; }
}
let from = 0, stack = '', state = '', call = {};
setInterval(() => {
  let st, wchan;
  try {
    const stat = readFileSync(base + 'stat', 'utf8');
    st = stat[stat.lastIndexOf(')') + 2];
    wchan = st === 'R' ? '' : readFileSync(base + 'wchan', 'utf8');
  } catch { return; }
  const now = Number(process.hrtime.bigint() / 1000n);
  const asleep = st === 'D' || (st === 'S' && !idle.test(wchan));
  if (asleep && from === 0) {
    from = now;
    state = st;
    try { stack = readFileSync(base + 'stack', 'utf8').split('\\n').slice(0, 8).join(' | '); } catch { stack = wchan; }
    call = syscallNow();
  } else if (!asleep && from !== 0) {
    const ms = (now - from) / 1000;
    if (ms >= 20) appendFileSync(workerData.file, JSON.stringify({ monoUs: now, ms, state, ...call, stack }) + '\\n');
    from = 0;
  }
}, 2);
`;

function startKernelWaits(file: string): void {
  if (process.platform !== 'linux') return;
  try {
    new Worker(KERNEL_WAIT_SOURCE, { eval: true, workerData: { pid: process.pid, file: `${file}.kernel` } }).unref();
  } catch {
    // a measurement aid
  }
}

function start(): void {
  if (started || !FILE) return;
  started = true;
  startKernelWaits(FILE);
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let lastSched = mainThreadSched();
  setInterval(() => {
    const sched = mainThreadSched();
    const mainCpuMs = sched && lastSched ? sched.cpuMs - lastSched.cpuMs : Number.NaN;
    const mainWaitMs = sched && lastSched ? sched.waitMs - lastSched.waitMs : Number.NaN;
    lastSched = sched;
    const now = performance.now();
    const gap = now - last;
    last = now;
    const used = process.cpuUsage(lastCpu);
    lastCpu = process.cpuUsage();
    const late = gap - TICK_MS;
    if (late > LATE_MS) {
      const by = new Map<string, { ms: number; cpuMs: number; n: number; max: number }>();
      for (const r of ran) {
        const e = by.get(r.name) ?? { ms: 0, cpuMs: 0, n: 0, max: 0 };
        e.ms += r.ms;
        e.cpuMs += r.cpuMs;
        e.n++;
        e.max = Math.max(e.max, r.ms);
        by.set(r.name, e);
      }
      const claimed = ran.reduce((s, r) => s + r.ms, 0);
      const sections = [...by.entries()]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([name, e]) => ({ name, ms: round(e.ms), cpuMs: round(e.cpuMs), n: e.n, max: round(e.max) }));
      // monoUs: the monotonic clock in µs, the time base of a V8 CPU profile's samples.
      const monoUs = Number(process.hrtime.bigint() / 1000n);
      const line = {
        at: round(now),
        monoUs,
        gapMs: round(gap),
        // The process's CPU over the gap (every thread): far under gapMs when the machine kept it waiting.
        gapCpuMs: round((used.user + used.system) / 1000),
        // The main thread alone: its CPU, its wait for a core, and the rest (blocked).
        mainCpuMs: round(mainCpuMs),
        mainWaitMs: round(mainWaitMs),
        mainBlockedMs: round(gap - mainCpuMs - mainWaitMs),
        lateMs: round(late),
        unclaimedMs: round(gap - claimed),
        sections,
      };
      try {
        appendFileSync(FILE, `${JSON.stringify(line)}\n`);
      } catch {
        // a measurement aid: a write that fails loses one line, nothing else
      }
    }
    ran = [];
  }, TICK_MS).unref();
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Runs `fn` and, when the loop watch is on, books its time under `name` (nested sections count in each). */
export function section<T>(name: string, fn: () => T): T {
  if (!FILE) return fn();
  start();
  const t = performance.now();
  const cpu = process.cpuUsage();
  try {
    return fn();
  } finally {
    const used = process.cpuUsage(cpu);
    ran.push({ name, ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 });
  }
}

/** Books `ms` under `name` (a section timed by hand, when it spans awaits); a no-op when off. */
export function bookSection(name: string, ms: number): void {
  if (!FILE) return;
  start();
  ran.push({ name, ms, cpuMs: Number.NaN });
}

/** True when the loop watch is on (callers skip their own timing otherwise). */
export const loopWatchOn = FILE !== undefined && FILE !== '';

/** Starts the watchdog when the loop watch is on (serve calls it at start). */
export function startLoopWatch(): void {
  start();
}
