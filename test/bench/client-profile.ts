/**
 * Where the uploader's CPU goes on a 1 GiB upload (issue 19): `node bin/run-ts.mjs
 * test/bench/client-profile.ts` (BENCH_MIB=1024, BENCH_ROUNDS=3, BENCH_PROFILE=1).
 * Starts `blocklift emulator` in its own process, writes one file (random bytes, like
 * run.ts), and uploads it BENCH_ROUNDS times with the bench's own uploader (upload-child.ts,
 * a fresh database each round), so `client_cpu_s_per_gib` here is the figure `npm run bench`
 * prints for its `one` section. Every round prints that figure and the child's user/system
 * split. With BENCH_PROFILE=1 the last round runs under `node --cpu-prof` and its main-thread
 * samples inside the upload are summed by what they were doing (SHA-1, CRC-32, read, HTTP,
 * SQLite, events/progress, copies, GC, …), in CPU-seconds per GiB. The profile itself slows
 * the run a little (≈ 2–5 %): the rounds without it are the figures to quote.
 * BENCH_BASE=<dir of another checkout> alternates rounds between that checkout's uploader and
 * this one's (same emulator, same file), so a change is compared under the same load.
 * BENCH_LATENCY_MS=50 adds that latency to every request (the emulator's fault, as the latency
 * section of `npm run bench`); each round prints the child's peak RSS, and with BENCH_MEMORY=1
 * what memoryUsage() said at its highest sample (heap, external, array buffers).
 * BENCH_CHILD_FLAGS="--trace-opt --trace-deopt" passes node/V8 flags to the uploader child
 * and shows the child's other output on stderr.
 * BENCH_SMALL=500 uploads that many 64 KiB files per round instead of one file (the small
 * files of `npm run bench`'s latency section): figures are then CPU-milliseconds per file
 * (`client_cpu_ms_per_file`, the bench's `small64_client_cpu_ms_per_file_0ms`), the profile's
 * too, with files/s and the event loop's p99 per round (BENCH_SMALL64 is the same); BENCH_FILE_KIB
 * sets those files' size (6144: a camera card's photos, in blocks). The child runs bundled; the profile's frames are mapped back to their source files
 * through the bundle's source map, so the rules below see src-main/ paths.
 * Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../../bin/build-lib.mjs';
import type { InFlightReport } from '../../src-main/engine/engine';
import { AK, BUCKET, SK, emulatorArgs } from './bench-emulator';
import { makeFile } from './bench-files';
import { cpuSeconds, cpuSplit } from '../helpers/proc-cpu';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const BYTES = Number(process.env.BENCH_MIB ?? 1024) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Added to every request by the emulator's latency fault (as `npm run bench`'s latency section does). */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);
const BASE = process.env.BENCH_BASE ? path.resolve(process.env.BENCH_BASE) : undefined;
/** BENCH_CHILD_FLAGS="--trace-deopt …": node/V8 flags for the uploader child; its other output lines then go to stderr. */
const CHILD_FLAGS = (process.env.BENCH_CHILD_FLAGS ?? '').split(' ').filter(Boolean);
/** BENCH_BY_CALLER=1: the largest leaves are named by their nearest src-main/ frame instead. */
const BY_CALLER = process.env.BENCH_BY_CALLER === '1';
/** BENCH_SMALL=N: N files of 64 KiB per round instead of one file of BENCH_MIB (BENCH_SMALL64, the name some committed outputs show, is the same). */
const SMALL = Number(process.env.BENCH_SMALL ?? process.env.BENCH_SMALL64 ?? 0);
/** BENCH_FILE_KIB=6144: the size of each of the BENCH_SMALL files (default 64 KiB), e.g. a camera card's photos. */
const FILE_KIB = Number(process.env.BENCH_FILE_KIB ?? 64);
/** What the figures are per: a GiB uploaded, or (BENCH_SMALL) a file, in milliseconds. */
const UNIT =
  SMALL > 0
    ? { name: 'client_cpu_ms_per_file', label: 'CPU-ms per file' }
    : { name: 'client_cpu_s_per_gib', label: 'CPU-s per GiB' };
const perUnit = (cpuSeconds: number, r: { bytes: number; files: number }): number =>
  SMALL > 0 ? (cpuSeconds * 1000) / r.files : cpuSeconds / (r.bytes / GiB);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What a stack is doing: the first rule, from the leaf up, that names one of its frames. */
const RULES: [string, (f: ProfileNode['callFrame']) => boolean][] = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['SHA-1', (f) => /internal\/crypto\/hash/.test(f.url) || /Hash(\.|$)|^digest$/.test(f.functionName)],
  ['CRC-32', (f) => f.functionName === 'crc32'],
  ['SQLite', (f) => /better-sqlite3|store\//.test(f.url)],
  ['events/progress', (f) => /engine\/(progress|transfer-news|snapshot)|base\/emitter|node:events/.test(f.url)],
  ['read', (f) => /internal\/fs\//.test(f.url) || /engine\/file-source/.test(f.url)],
  ['copies', (f) => /^(concat|copy|from|allocUnsafe\w*|slice)$/.test(f.functionName) && /buffer/.test(f.url)],
  [
    'HTTP',
    (f) => /_http_|node:http|node:net|internal\/(stream|streams|net)|stream_base|protocol\/(http|client)/.test(f.url),
  ],
  ['timers/promises', (f) => /internal\/timers|node:timers|internal\/process\/task_queues/.test(f.url)],
  ['engine', (f) => /src-main\/engine\//.test(f.url)],
  ['program (native, unattributed)', (f) => f.functionName === '(program)'],
];

/**
 * Frames of a bundled file (the child runs bundled, build-lib.mjs bundleForNode) get the
 * source file and function they came from, through the bundle's linked source map.
 */
function unbundle(p: Profile): void {
  const maps = new Map<string, SourceMap | null>();
  for (const n of p.nodes) {
    const f = n.callFrame;
    if (!/\.mjs$/.test(f.url) || f.lineNumber < 0) continue;
    let map = maps.get(f.url);
    if (map === undefined) {
      try {
        const file = fileURLToPath(f.url.startsWith('file:') ? f.url : `file://${f.url}`);
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as never);
      } catch {
        map = null;
      }
      maps.set(f.url, map);
    }
    const e = map?.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string } | undefined;
    if (e?.originalSource) f.url = e.originalSource;
  }
}

function summarize(
  p: Profile,
  r: { bytes: number; files: number },
): { rows: [string, number][]; windowS: number; top: [string, number][] } {
  unbundle(p);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const inEngine = new Map<number, boolean>();
  const categoryOf = (id: number): string => {
    const m = memo.get(id);
    if (m) return m;
    let cat = 'other';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const rule = RULES.find(([, test]) => test(f));
      if (rule) {
        cat = rule[0];
        break;
      }
    }
    memo.set(id, cat);
    return cat;
  };
  const touchesEngine = (id: number): boolean => {
    let v = inEngine.get(id);
    if (v === undefined) {
      const f = byId.get(id)!.callFrame;
      const up = parent.get(id);
      v = /src-main\/(engine|protocol)\//.test(f.url) || (up !== undefined && touchesEngine(up));
      inEngine.set(id, v);
    }
    return v;
  };
  // The upload's window: from the first to the last sample with an engine or protocol frame.
  let t = 0;
  const times = p.timeDeltas.map((d) => (t += d));
  let first = -1;
  let last = -1;
  p.samples.forEach((id, i) => {
    if (touchesEngine(id)) {
      if (first < 0) first = i;
      last = i;
    }
  });
  const sums = new Map<string, number>();
  const leaves = new Map<string, number>();
  for (let i = Math.max(first, 0); i <= last; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1e6;
    const id = p.samples[i]!;
    const cat = categoryOf(id);
    sums.set(cat, (sums.get(cat) ?? 0) + dt);
    if (cat !== 'idle') {
      let at = id;
      // BENCH_BY_CALLER=1: each sample named by its nearest frame of src-main/ (who asked for it).
      if (BY_CALLER)
        for (let up: number | undefined = id; up !== undefined; up = parent.get(up))
          if (/src-main\//.test(byId.get(up)!.callFrame.url)) {
            at = up;
            break;
          }
      const f = byId.get(at)!.callFrame;
      const name = `${cat}: ${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src-main|node_modules)\//, '$1/')}`;
      leaves.set(name, (leaves.get(name) ?? 0) + dt);
    }
  }
  const per = (s: number) => perUnit(s, r);
  const rows = [...sums.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]): [string, number] => [k, per(v)]);
  const top = [...leaves.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.BENCH_TOP ?? 12))
    .map(([k, v]): [string, number] => [k, per(v)]);
  return { rows, windowS: (times[last] ?? 0) / 1e6 - (times[first] ?? 0) / 1e6, top };
}

interface ChildResult {
  cpuSeconds: number;
  peakRssBytes: number;
  /** With BENCH_MEMORY=1 (upload-child.ts): the parts of the memory at the highest RSS sampled. */
  memory?: { atPeakRss: Record<string, number> };
  bytes: number;
  files: number;
  elapsedMs: number;
  /** The uploader's event-loop delay p99 over the upload, ms. */
  loopP99Ms: number;
  failed: unknown[];
  /** The engine's in-flight report at the end (upload-child.ts): how far the window went. */
  window?: InFlightReport;
}

/**
 * A checkout's upload-child.ts bundled as the CLI is and run by plain node, as run.ts does
 * (so its RSS is the product's, without tsx's loader); built once per checkout.
 */
const compiled = new Map<string, Promise<string>>();
function compiledChild(root: string): Promise<string> {
  let p = compiled.get(root);
  if (!p) {
    const name = root === ROOT ? 'upload-child.mjs' : 'upload-child-base.mjs';
    p = bundleForNode(path.join(root, 'test/bench/upload-child.ts'), `dist/bench/${name}`);
    compiled.set(root, p);
  }
  return p;
}

/** One upload-child run; its result, and the child's user/system CPU for the whole process from /proc at exit. */
async function uploadOnce(
  uploadUrl: string,
  files: string[],
  db: string,
  profDir?: string,
  root = ROOT,
): Promise<{ r: ChildResult; user: number; system: number; threads: string }> {
  const args = [
    ...CHILD_FLAGS,
    ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []),
    await compiledChild(root),
    uploadUrl,
    AK,
    SK,
    BUCKET,
    db,
    ...files,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let r: ChildResult | undefined;
  let stat = { user: 0, system: 0, threads: '' };
  for await (const line of createInterface({ input: child.stdout })) {
    if (!line.startsWith('result ')) {
      if (CHILD_FLAGS.length > 0) process.stderr.write(`child: ${line}\n`);
      continue;
    }
    r = JSON.parse(line.slice(7)) as ChildResult;
    // The child is still alive here (closing its database): whole-process figures so far.
    try {
      const byName = new Map<string, number>();
      for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
        const name = readFileSync(`/proc/${child.pid}/task/${tid}/comm`, 'utf8').trim();
        byName.set(name, (byName.get(name) ?? 0) + cpuSeconds(child.pid!, Number(tid)));
      }
      const threads = [...byName.entries()]
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      stat = { ...cpuSplit(child.pid!), threads };
    } catch {
      // already gone
    }
  }
  await new Promise((res) => (child.exitCode !== null ? res(undefined) : child.once('exit', res)));
  if (!r) throw new Error('upload-child gave no result');
  if (r.failed.length) throw new Error(`upload failed: ${JSON.stringify(r.failed)}`);
  return { r, ...stat };
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-cprof-'));
const emu = spawn(process.execPath, emulatorArgs(ROOT, path.join(tmp, 'emu')), {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  let uploadUrl = '';
  let admin = { adminUrl: '', adminToken: '' };
  for await (const line of createInterface({ input: emu.stdout })) {
    ({ uploadUrl, ...admin } = JSON.parse(line) as { uploadUrl: string; adminUrl: string; adminToken: string });
    break;
  }
  if (LATENCY_MS > 0) {
    const res = await fetch(`${admin.adminUrl}/faults`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ latencyMs: LATENCY_MS }),
    });
    if (!res.ok) throw new Error(`setting the emulator's latency answered ${res.status}: ${await res.text()}`);
  }
  const files: string[] = [];
  if (SMALL > 0) {
    await mkdir(path.join(tmp, 'small'));
    for (let i = 0; i < SMALL; i++) {
      files.push(path.join(tmp, 'small', `s${String(i).padStart(4, '0')}.bin`));
      await writeFile(files[i]!, randomBytes(FILE_KIB * 1024));
    }
  } else {
    files.push(path.join(tmp, 'one.bin'));
    await makeFile(files[0]!, BYTES);
  }
  process.stdout.write(
    `client-profile: ${SMALL > 0 ? `${SMALL} × ${FILE_KIB} KiB` : `${BYTES / MiB} MiB`}, ${LATENCY_MS} ms latency, ${ROUNDS} rounds, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  const figures: number[] = [];
  const baseFigures: number[] = [];
  const rss: number[] = [];
  const baseRss: number[] = [];
  const rates: number[] = [];
  const baseRates: number[] = [];
  for (let i = 0; i < ROUNDS * (BASE ? 2 : 1); i++) {
    const onBase = BASE !== undefined && i % 2 === 0;
    const prof = PROFILE && i === ROUNDS * (BASE ? 2 : 1) - 1 ? path.join(tmp, 'prof') : undefined;
    const emu0 = cpuSeconds(emu.pid!);
    const { r, user, system, threads } = await uploadOnce(
      uploadUrl,
      files,
      path.join(tmp, `r${i}.db`),
      prof,
      onBase ? BASE : ROOT,
    );
    const figure = perUnit(r.cpuSeconds, r);
    // The service's side of the same round (the emulator serves one uploader at a time here).
    const emuFigure = perUnit(cpuSeconds(emu.pid!) - emu0, r);
    if (!prof) (onBase ? baseFigures : figures).push(figure);
    if (SMALL > 0 && !prof) (onBase ? baseRates : rates).push(r.files / (r.elapsedMs / 1000));
    if (!prof) (onBase ? baseRss : rss).push(r.peakRssBytes / MiB);
    const parts = r.memory
      ? ` (at the highest sample: ${Object.entries(r.memory.atPeakRss)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ')})`
      : '';
    process.stdout.write(
      `round ${i + 1}${onBase ? ' (base)' : ''}${prof ? ' (--cpu-prof)' : ''}: ${UNIT.name} ${figure.toFixed(3)}, ${
        SMALL > 0
          ? `${(r.files / (r.elapsedMs / 1000)).toFixed(0)} files/s${FILE_KIB !== 64 ? ` (${(r.bytes / 1e6 / (r.elapsedMs / 1000)).toFixed(0)} MB/s)` : ''}, event loop p99 ${r.loopP99Ms.toFixed(1)} ms${
              r.window?.form
                ? `, window ×${r.window.form.factor.toFixed(2)} (peak ×${r.window.form.peakFactor.toFixed(2)}, least round trip ${/* Infinity (no reply of the kind) comes through JSON as null */ Number(r.window.form.minRttMs ?? NaN).toFixed(1)} ms)`
                : ''
            }`
          : `${(r.bytes / 1e6 / (r.elapsedMs / 1000)).toFixed(0)} MB/s`
      }, peak RSS ${(r.peakRssBytes / MiB).toFixed(1)} MiB${parts}; whole process user ${user.toFixed(2)} s, system ${system.toFixed(2)} s (by thread: ${threads}); emulator ${emuFigure.toFixed(3)}; load1 ${os
        .loadavg()[0]!
        .toFixed(2)}\n`,
    );
    if (prof) {
      const name = readdirSync(prof).find((f) => f.endsWith('.cpuprofile'))!;
      const p = JSON.parse(readFileSync(path.join(prof, name), 'utf8')) as Profile;
      const { rows, windowS, top } = summarize(p, r);
      process.stdout.write(`main thread, ${windowS.toFixed(2)} s of upload, ${UNIT.label} by what it did:\n`);
      const busy = rows.filter(([k]) => k !== 'idle').reduce((a, [, v]) => a + v, 0);
      for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(32)} ${v.toFixed(3)}\n`);
      process.stdout.write(`  ${'busy (all but idle)'.padEnd(32)} ${busy.toFixed(3)}\n`);
      // A sample's time is wall time: on a loaded machine it includes time the process waited
      // for a core. The process's own CPU figure over the busy sum scales the rows to CPU.
      process.stdout.write(
        `  (the process measured ${figure.toFixed(3)} ${UNIT.label}: × ${(figure / busy).toFixed(3)} turns a row into its CPU share)\n`,
      );
      process.stdout.write('largest leaves (category: function, file):\n');
      for (const [k, v] of top) process.stdout.write(`  ${v.toFixed(3)}  ${k}\n`);
    }
  }
  for (const [name, xs, figure] of [
    ['base', baseFigures, UNIT.name],
    ['this checkout', figures, UNIT.name],
    ['base', baseRates, 'files/s'],
    ['this checkout', rates, 'files/s'],
    ['base', baseRss, 'peak RSS MiB'],
    ['this checkout', rss, 'peak RSS MiB'],
  ] as const) {
    if (xs.length === 0) continue;
    const sorted = [...xs].sort((a, b) => a - b);
    process.stdout.write(
      `${figure} (${name}): median ${((sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2).toFixed(3)}, min ${sorted[0]!.toFixed(
        3,
      )}, max ${sorted[sorted.length - 1]!.toFixed(3)} (${xs.length} rounds)\n`,
    );
  }
} finally {
  emu.kill('SIGTERM');
  await rm(tmp, { recursive: true, force: true });
}
