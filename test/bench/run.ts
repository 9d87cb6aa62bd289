/**
 * `npm run bench`: the benchmarks (not part of `npm test`). The emulator, the baseline
 * server and every measured uploader run in their own processes; this process only
 * orchestrates. Sections (BENCH_ONLY=a,b selects some; unset runs all): one, resume, four,
 * small, latency (speed.ts), dedupe (same-bytes.ts, its own emulator in this process), startup, emulator (speed.ts, emulator-cpu.ts), sync (sync.ts),
 * ui (ui.ts; needs Chromium: ensureTestBrowser() gets it as `npm test` does, and when it
 * cannot, only this section is skipped, with one line saying why).
 *
 * Every figure is compared with its target in targets.ts (check.ts) and printed as a table:
 * section, figure, measured, target, met. With `--check` the run exits 1 unless every target
 * was measured and met (a section that did not run counts as not met); `--check --from FILE`
 * checks a results file without running anything. A section that throws is reported as
 * `failed: …`, the others still run, and the run exits 1.
 *
 * Results: a full run (no BENCH_ONLY and no other BENCH_* variable: those scale sizes or
 * profile) writes bench/results/<YYYY-MM-DD>-<machine>.json (UTC date; machine from
 * check.ts's machineName(), or BENCH_MACHINE); commit the ones quoted and run
 * `npm run bench:report` (report.ts) to regenerate README.md's tables from them. Any other
 * run writes bench/results/partial.json (git-ignored, never quoted). The file holds the
 * figures, each section's status, time and load, and the run's context (UTC times, Node, CPU,
 * cores, memory, git commit and whether tracked files were changed, the load before and
 * during).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureTestBrowser } from '../../bin/test-browser.mjs';
import { bundleForNode } from '../../bin/build-lib.mjs';
import type { InFlightReport } from '../../src-main/engine/engine';
import {
  checkResults,
  machineName,
  summarize,
  summaryLine,
  textTable,
  type ResultsFile,
  type RunContext,
  type SectionRun,
} from './check';
import { runSameBytesBench } from './same-bytes';
import { runEmulatorCpuBench, runLatencyBench, runStartupBench } from './speed';
import { runSyncBench } from './sync';
import { SECTIONS, type Section } from './targets';
import { AK, BUCKET, SK, emulatorArgs } from './bench-emulator';
import { makeFile } from './bench-files';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const RUN_TS = path.join(ROOT, 'bin/run-ts.mjs');
/**
 * The measured uploader, bundled as the CLI is (build-lib.mjs bundleForNode) and run by plain
 * node: its RSS and CPU are then the product's. Through tsx's loader it carried 32–38 MiB more
 * (the loader's own thread and heap), which no shipped run has (engine/README.md "Memory").
 * BENCH_CHILD_TSX=1 runs it through tsx as before 2026-11-27 (to compare with older results).
 */
const uploadChild = (): Promise<string[]> =>
  (uploadChildBuilt ??=
    process.env.BENCH_CHILD_TSX === '1'
      ? Promise.resolve([RUN_TS, path.join(HERE, 'upload-child.ts')])
      : bundleForNode(path.join(HERE, 'upload-child.ts'), 'dist/bench/upload-child.mjs').then((f) => [f]));
let uploadChildBuilt: Promise<string[]> | undefined;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Sizes can be scaled down to check the runner itself (the keys keep their names). */
const ONE_BYTES = Number(process.env.BENCH_FILE_MIB ?? 1024) * MiB;
const BIG_BYTES = Number(process.env.BENCH_BIG_MIB ?? 4096) * MiB;
const SMALL_FILES = Number(process.env.BENCH_SMALL_FILES ?? 2000);
/**
 * BENCH_ONLY=one,resume,four,small,latency,dedupe,startup,emulator,sync,ui runs only those sections (for profiling one
 * figure); unset runs everything. The baseline runs with `one`.
 */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const runs = (section: Section): boolean => !ONLY || ONLY.has(section);
/** What makes a run partial (never quoted): BENCH_ONLY, scaled sizes, profiling: every BENCH_* but BENCH_MACHINE. */
const PARTIAL = Object.entries(process.env)
  .filter(([k]) => k.startsWith('BENCH_') && k !== 'BENCH_MACHINE')
  .map(([k, v]) => `${k}=${v}`)
  .sort();

interface ChildResult {
  elapsedMs: number;
  mkfileMs: number;
  bytes: number;
  files: number;
  failed: unknown[];
  cpuSeconds: number;
  peakRssBytes: number;
  loopP99Ms: number;
  sentBytes: number;
  /** The engine's in-flight window at the end (engine.inFlight()). */
  window?: InFlightReport;
}

const children = new Set<ChildProcess>();

function startChild(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; lines: AsyncIterable<string> } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return { child, lines: createInterface({ input: child.stdout! }) };
}

async function uploadRun(
  files: string[],
  dbFile: string,
  uploadUrl: string,
  env: Record<string, string> = {},
  onLine?: (line: string, child: ChildProcess) => void,
): Promise<ChildResult | undefined> {
  const { child, lines } = startChild([...(await uploadChild()), uploadUrl, AK, SK, BUCKET, dbFile, ...files], env);
  let result: ChildResult | undefined;
  for await (const line of lines) {
    if (line.startsWith('result ')) result = JSON.parse(line.slice(7)) as ChildResult;
    else onLine?.(line, child);
  }
  await new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r),
  );
  if (result && result.failed.length)
    throw new Error(`upload run failed: ${JSON.stringify(result.failed.slice(0, 3))}`);
  return result;
}

type Figures = Record<string, number>;

const load1 = (): number => os.loadavg()[0]!;
/** The 1-minute load average every 5 s while the run lasts (and at each section's start and end). */
const loadSamples: { t: number; load: number }[] = [];
const sampleLoad = () => loadSamples.push({ t: Date.now(), load: load1() });

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

function runContext(started: Date): RunContext {
  const cpus = os.cpus();
  const dirtyFiles = git(['status', '--porcelain', '-z', '--untracked-files=no'])
    .split('\0')
    .filter(Boolean)
    .map((l) => l.slice(3));
  return {
    started: started.toISOString(),
    finished: '',
    quotable: PARTIAL.length === 0,
    partial: PARTIAL,
    machine: machineName(cpus[0]?.model ?? 'cpu', cpus.length, process.env.BENCH_MACHINE),
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gib: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${process.platform} ${os.release()}`,
    node: process.version,
    commit: git(['rev-parse', 'HEAD']).trim() || 'unknown',
    dirty: dirtyFiles.length > 0,
    dirty_files: dirtyFiles,
    load_before: os.loadavg().map(round),
    load_during: { min: 0, max: 0, mean: 0, samples: 0 },
  };
}

function loadBetween(t0: number, t1: number): { min: number; max: number; mean: number; samples: number } {
  const xs = loadSamples.filter((s) => s.t >= t0 && s.t <= t1).map((s) => s.load);
  if (xs.length === 0) return { min: load1(), max: load1(), mean: load1(), samples: 0 };
  return {
    min: round(Math.min(...xs)),
    max: round(Math.max(...xs)),
    mean: round(xs.reduce((a, b) => a + b, 0) / xs.length),
    samples: xs.length,
  };
}

async function main(results: Figures, sections: Partial<Record<Section, SectionRun>>): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-bench-'));
  /** Runs one section: its figures, time and load; a throw marks it failed and the run goes on. */
  const section = async (name: Section, run: () => Promise<Figures> | Figures): Promise<void> => {
    if (!runs(name)) {
      sections[name] = { ran: false, reason: `not selected (BENCH_ONLY=${process.env.BENCH_ONLY})` };
      return;
    }
    if (sections[name]) return; // already decided (the UI section without a browser)
    const t0 = Date.now();
    sampleLoad();
    const start = load1();
    process.stderr.write(`bench: ${name}…\n`);
    let status: SectionRun;
    try {
      Object.assign(results, await run());
      status = { ran: true };
    } catch (e) {
      process.stderr.write(`bench: section ${name} failed: ${(e as Error).stack ?? String(e)}\n`);
      status = { ran: false, reason: `failed: ${String((e as Error).message ?? e).split('\n')[0]}` };
    }
    sampleLoad();
    const l = loadBetween(t0, Date.now());
    sections[name] = {
      ...status,
      started: new Date(t0).toISOString(),
      seconds: Math.round((Date.now() - t0) / 100) / 10,
      load1: { start: round(start), min: l.min, max: l.max },
    };
  };
  try {
    // The emulator, in its own process.
    const emu = startChild(emulatorArgs(ROOT, path.join(tmp, 'emu')));
    let uploadUrl = '';
    let admin = { adminUrl: '', adminToken: '' };
    let downloadBaseUrl = '';
    for await (const line of emu.lines) {
      const info = JSON.parse(line) as {
        uploadUrl: string;
        adminUrl: string;
        adminToken: string;
        downloadBaseUrl: string;
      };
      uploadUrl = info.uploadUrl;
      admin = { adminUrl: info.adminUrl, adminToken: info.adminToken };
      downloadBaseUrl = info.downloadBaseUrl;
      break;
    }
    if (!uploadUrl) throw new Error('the emulator did not start');
    process.stderr.write(`emulator at ${uploadUrl}\n`);

    const f1 = path.join(tmp, 'one-gib.bin');
    if (runs('one') || runs('resume')) await makeFile(f1, ONE_BYTES);

    await section('one', async () => {
      const out: Figures = {};
      // Baseline: plain node:http, 4 MiB bodies, 4 at a time, to a server writing them to disk.
      await mkdir(path.join(tmp, 'baseline'));
      const server = startChild([RUN_TS, path.join(HERE, 'baseline.ts'), 'server', path.join(tmp, 'baseline')]);
      let port = '';
      for await (const line of server.lines) {
        port = line.trim();
        break;
      }
      const base = startChild([RUN_TS, path.join(HERE, 'baseline.ts'), 'client', port, f1]);
      let baseline: { elapsedMs: number; bytes: number } | undefined;
      for await (const line of base.lines)
        if (line.startsWith('result ')) baseline = JSON.parse(line.slice(7)) as { elapsedMs: number; bytes: number };
      server.child.kill('SIGTERM');
      if (!baseline) throw new Error('the baseline client gave no result');
      out.baseline_mbps = baseline.bytes / 1e6 / (baseline.elapsedMs / 1000);

      // 1 GiB single file, end to end.
      const one = await uploadRun([f1], path.join(tmp, 'one.db'), uploadUrl);
      if (!one) throw new Error('the 1 GiB upload gave no result');
      out.upload_mbps = one.bytes / 1e6 / (one.elapsedMs / 1000);
      out.ratio = out.upload_mbps / out.baseline_mbps;
      // For reading the figure: the same run without the final mkfile (the service merging 1 GiB).
      out.upload_blocks_mbps = one.bytes / 1e6 / ((one.elapsedMs - one.mkfileMs) / 1000);
      out.mkfile_s_1gib = one.mkfileMs / 1000;
      out.client_cpu_s_per_gib = one.cpuSeconds / (one.bytes / GiB);
      out.rss_mib_1gib = one.peakRssBytes / MiB;
      out.event_loop_p99_ms = one.loopP99Ms;
      return out;
    });

    // Resume waste: SIGKILL at 50%, run again on the same database.
    await section('resume', async () => {
      let sentBeforeKill = 0;
      let killed = false;
      await uploadRun([f1], path.join(tmp, 'resume.db'), uploadUrl, { BENCH_REPORT_SENT: '1' }, (line, child) => {
        const [kind, a, b, c] = line.split(' ');
        if (kind === 'sent') sentBeforeKill = Number(a);
        if (kind === 'progress' && !killed && Number(b) >= Number(c) / 2) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      const resumed = await uploadRun([f1], path.join(tmp, 'resume.db'), uploadUrl);
      if (!resumed) throw new Error('the resumed upload gave no result');
      return {
        resume_waste_bytes: Math.max(0, sentBeforeKill + resumed.sentBytes - ONE_BYTES),
        // For reading it: what the killed run had sent, what the resumed one sent.
        resume_sent_before_kill_bytes: sentBeforeKill,
        resume_sent_after_bytes: resumed.sentBytes,
      };
    });

    // 4 GiB: memory must not grow with file size.
    await rm(f1, { force: true });
    await section('four', async () => {
      const f4 = path.join(tmp, 'four-gib.bin');
      await makeFile(f4, BIG_BYTES);
      try {
        const four = await uploadRun([f4], path.join(tmp, 'four.db'), uploadUrl);
        if (!four) throw new Error('the 4 GiB upload gave no result');
        return { rss_mib_4gib: four.peakRssBytes / MiB, upload_mbps_4gib: four.bytes / 1e6 / (four.elapsedMs / 1000) };
      } finally {
        await rm(f4, { force: true });
      }
    });

    // 2,000 files of 4 KiB (16 large-file slots as before; small files use the engine's own budget).
    await section('small', async () => {
      const small = path.join(tmp, 'small');
      await mkdir(small);
      const names: string[] = [];
      for (let i = 0; i < SMALL_FILES; i++) {
        const p = path.join(small, `f${String(i).padStart(4, '0')}.bin`);
        await writeFile(p, randomBytes(4096));
        names.push(p);
      }
      const smallRun = await uploadRun(names, path.join(tmp, 'small.db'), uploadUrl, { BENCH_FILES: '16' });
      if (!smallRun) throw new Error('the small-file upload gave no result');
      return { small_files_per_s: smallRun.files / (smallRun.elapsedMs / 1000) };
    });

    // 500 × 64 KiB and 512 MiB at 0, 20 and 50 ms of latency, Blocklift and the official
    // SDKs (the browser one in Chromium, found or installed as for the UI section); the
    // emulator's CPU per GiB.
    const latencyBrowser = (): { ok: true } | { ok: false; reason: string } => {
      const b = ensureTestBrowser();
      return b.ok ? { ok: true } : { ok: false, reason: b.reason ?? 'no Chromium' };
    };
    await section('latency', () =>
      runLatencyBench({
        root: ROOT,
        tmp,
        ...admin,
        sdk: { uploadUrl, downloadBaseUrl, ak: AK, sk: SK, bucket: BUCKET },
        browser: latencyBrowser(),
        emulatorPid: emu.child.pid!,
        makeFile,
        upload: (files, dbFile, env) => uploadRun(files, dbFile, uploadUrl, env),
      }),
    );
    emu.child.kill('SIGTERM');
    // 100 files, 50 of them the bytes of files uploaded before (issue 19): an emulator of its own, in this process.
    await section('dedupe', () => runSameBytesBench());
    await section('startup', () => runStartupBench(ROOT));
    await section('emulator', () => runEmulatorCpuBench(ROOT));
    await section('sync', () => runSyncBench());
    if (runs('ui')) {
      // Like `npm test`: find Chromium and a CJK font, or install them (apt, Debian, root).
      const browser = ensureTestBrowser();
      if (!browser.ok) {
        sections.ui = { ran: false, reason: `no browser: ${browser.reason}` };
        process.stderr.write(`bench: the UI section did not run: ${browser.reason}\n`);
      }
    }
    await section('ui', async () => (await import('./ui')).runUiBench());
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  }
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function roundAll(o: Figures): Record<string, number> {
  const r: Record<string, number> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'number') r[k] = round(v);
  return r;
}

/** Prints the table of `results` (and with --check, its verdict); returns whether every target was met. */
function report(results: ResultsFile, check: boolean): boolean {
  const rows = checkResults(results);
  const s = summarize(rows);
  if (check) process.stdout.write(`check: ${summaryLine(s)}\n`);
  process.stdout.write(`${textTable(rows)}\n`);
  return s.passed;
}

let opts: { check?: boolean; from?: string };
try {
  opts = parseArgs({ options: { check: { type: 'boolean' }, from: { type: 'string' } } }).values;
} catch (e) {
  process.stderr.write(
    `${(e as Error).message}\nusage: npm run bench [-- --check] | npm run bench -- --check --from <results.json>\n`,
  );
  process.exit(2);
}
const CHECK = opts.check === true;

if (opts.from) {
  const results = JSON.parse(readFileSync(opts.from, 'utf8')) as ResultsFile;
  process.stdout.write(`results: ${opts.from}\n`);
  process.exit(report(results, CHECK) || !CHECK ? 0 : 1);
}

const started = new Date();
const context = runContext(started);
const timer = setInterval(sampleLoad, 5000);
const figures: Figures = {};
const sections: Partial<Record<Section, SectionRun>> = {};
try {
  await main(figures, sections);
} finally {
  clearInterval(timer);
}
for (const s of SECTIONS) sections[s] ??= { ran: false, reason: 'the run stopped before it' };
context.finished = new Date().toISOString();
context.load_during = loadBetween(started.getTime(), Date.now());
const results: ResultsFile = { schema: 1, run: context, sections, figures: roundAll(figures) };
const outFile = path.join(
  ROOT,
  'bench/results',
  context.quotable ? `${context.started.slice(0, 10)}-${context.machine}.json` : 'partial.json',
);
await mkdir(path.dirname(outFile), { recursive: true });
await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(
  `bench: wrote ${path.relative(ROOT, outFile)}${context.quotable ? '' : ` (partial: ${PARTIAL.join(' ')}; never quoted)`}\n`,
);
const failed = SECTIONS.filter((s) => sections[s]?.reason?.startsWith('failed'));
if (failed.length) process.stdout.write(`bench: failed sections: ${failed.join(', ')}\n`);
const met = report(results, CHECK);
process.exitCode = failed.length || (CHECK && !met) ? 1 : 0;
