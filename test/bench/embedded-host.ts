/**
 * Where the embedded emulator should run (issue 20): `node bin/run-ts.mjs
 * test/bench/embedded-host.ts` (BENCH_FILES=3000 small files, BENCH_BIG_MIB=4 × 16 MiB
 * files, BENCH_MODES=inline,worker,child, BENCH_ROUNDS=2). For each mode the app core
 * (AppCore, real SQLite, real files) uploads the same files to its embedded emulator, run
 * in this thread (`inline`, as before issue 20, through startEmulator), in a worker thread
 * or in a child process (emulator/host.ts). Measured per run: the app's main-loop delay
 * (perf_hooks histogram: p50, p99, max), the CPU seconds of the app's main thread, of the
 * whole process and of the child (from /proc; Linux only), wall time and peak RSS. Writes
 * bench/embedded-host/<date>.json and the block between `<!-- embedded-host:begin -->` and
 * `<!-- embedded-host:end -->` of src-main/emulator/README.md. Not part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src-main/emulator/server';
import type { HostMode } from '../../src-main/emulator/host';
import { AppCore } from '../../src-main/service/app-core';
import { LOCAL_ACCESS_KEY, LOCAL_ACCOUNT_NAME, localSecret } from '../../src-main/service/embedded';
import { cpuSeconds as cpu } from '../helpers/proc-cpu';

type Mode = 'inline' | HostMode;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = path.join(ROOT, 'src-main/emulator/README.md');
export const BEGIN = '<!-- embedded-host:begin -->';
export const END = '<!-- embedded-host:end -->';
const MiB = 1024 * 1024;
const FILES = Number(process.env.BENCH_FILES ?? 3000);
const BIG = Number(process.env.BENCH_BIG_MIB ?? 4);
const MODES = (process.env.BENCH_MODES ?? 'inline,worker,child').split(',') as Mode[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Row {
  mode: Mode;
  round: number;
  wallS: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  mainThreadCpuS: number;
  processCpuS: number;
  childCpuS: number;
  peakRssMiB: number;
  /** The emulator's process, in child mode. */
  childPeakRssMiB: number;
  load1: number;
}

/** Resident memory of a process, from /proc (0 when it is gone). */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The child processes of this one (the emulator's, in child mode). */
function children(): number[] {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function writeFiles(dir: string): Promise<void> {
  for (let i = 0; i < FILES; i += 500) {
    const d = path.join(dir, `d${i / 500}`);
    await mkdir(d, { recursive: true });
    await Promise.all(
      Array.from({ length: Math.min(500, FILES - i) }, (_, j) =>
        writeFile(path.join(d, `f${i + j}.txt`), `file ${i + j}\n`.repeat(40)),
      ),
    );
  }
  const big = Buffer.alloc(16 * MiB);
  for (let i = 0; i < BIG; i++) {
    big.fill(i + 1);
    await writeFile(path.join(dir, `big${i}.bin`), big);
  }
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of execFileSync('find', [dir, '-type', 'f'], { encoding: 'utf8' }).split('\n')) if (e) out.push(e);
  return out;
}

async function run(mode: Mode, round: number, files: string[], tmp: string): Promise<Row> {
  const dataDir = path.join(tmp, `data-${mode}-${round}`);
  await mkdir(dataDir, { recursive: true });
  let inline: Awaited<ReturnType<typeof startEmulator>> | undefined;
  let done = 0;
  let finished: () => void = () => undefined;
  const all = new Promise<void>((r) => (finished = r));
  const onEvent = (e: { type: string; transfer?: { state: string } }) => {
    if (e.type === 'transfer-changed' && (e.transfer?.state === 'done' || e.transfer?.state === 'failed')) {
      if (++done === files.length) finished();
    }
  };
  let core: AppCore;
  if (mode === 'inline') {
    const { file, secret } = localSecret(dataDir);
    inline = await startEmulator({
      dataDir: path.join(dataDir, 'emulator'),
      accessKey: LOCAL_ACCESS_KEY,
      secretKey: secret,
    });
    core = await AppCore.open({ dataDir, embeddedEmulator: false, onEvent: onEvent as never });
    core.accounts.upsert({
      name: LOCAL_ACCOUNT_NAME,
      uploadUrl: inline.uploadUrl,
      mgrUrl: inline.mgrUrl,
      downloadDomain: `${inline.downloadBaseUrl}/local`,
      accessKey: LOCAL_ACCESS_KEY,
      secretRef: `file:${file}`,
      tokenUrl: null,
    });
  } else {
    core = await AppCore.open({ dataDir, emulatorOptions: { hostMode: mode }, onEvent: onEvent as never });
  }
  const accountId = core.accounts.byName(LOCAL_ACCOUNT_NAME)!.id;
  const kids = children();
  const h = monitorEventLoopDelay({ resolution: 10 });
  let peakRss = 0;
  let childPeak = 0;
  const rss = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    childPeak = Math.max(
      childPeak,
      kids.reduce((n, k) => n + rssOf(k), 0),
    );
  }, 200);
  const cpu0 = {
    main: cpu(process.pid, process.pid),
    proc: cpu(process.pid),
    kids: kids.reduce((s, k) => s + cpu(k), 0),
  };
  const t0 = performance.now();
  h.enable();
  core.engine.enqueue(
    files.map((f, i) => ({ accountId, bucket: 'local', key: `r/${i}`, localPath: f, source: 'manual' as const })),
  );
  await all;
  h.disable();
  const wallS = (performance.now() - t0) / 1000;
  const row: Row = {
    mode,
    round,
    wallS,
    loopP50Ms: h.percentile(50) / 1e6,
    loopP99Ms: h.percentile(99) / 1e6,
    loopMaxMs: h.max / 1e6,
    mainThreadCpuS: cpu(process.pid, process.pid) - cpu0.main,
    processCpuS: cpu(process.pid) - cpu0.proc,
    childCpuS: kids.reduce((s, k) => s + cpu(k), 0) - cpu0.kids,
    peakRssMiB: peakRss / MiB,
    childPeakRssMiB: childPeak / MiB,
    load1: os.loadavg()[0]!,
  };
  clearInterval(rss);
  await core.close();
  await inline?.close();
  return row;
}

const fmt = (n: number, d = 1) => n.toFixed(d);

function block(rows: Row[], meta: { started: string; commit: string; cmd: string }): string {
  const lines = [
    BEGIN,
    `Run ${meta.started.slice(0, 16).replace('T', ' ')} UTC, commit \`${meta.commit}\`, ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}; ${FILES} files of 500 B + ${BIG} × 16 MiB per run, by \`${meta.cmd}\`. CPU in seconds (user + system); "app thread" is the app's main thread, "total" the app's process plus the emulator's child process.`,
    '',
    '| mode | round | wall s | loop p50 ms | loop p99 ms | loop max ms | app thread CPU s | total CPU s | peak RSS MiB app + child | load 1 min |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.round} | ${fmt(r.wallS)} | ${fmt(r.loopP50Ms)} | ${fmt(r.loopP99Ms)} | ${fmt(r.loopMaxMs)} | ${fmt(r.mainThreadCpuS, 2)} | ${fmt(r.processCpuS + r.childCpuS, 2)} | ${fmt(r.peakRssMiB, 0)} + ${fmt(r.childPeakRssMiB, 0)} | ${fmt(r.load1, 2)} |`,
    ),
    END,
  ];
  return lines.join('\n');
}

const started = new Date().toISOString();
const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-bench-host-'));
try {
  const src = path.join(tmp, 'files');
  await writeFiles(src);
  const files = listFiles(src);
  const rows: Row[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of MODES) {
      const r = await run(mode, round, files, tmp);
      rows.push(r);
      process.stdout.write(`${JSON.stringify(r)}\n`);
    }
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const cmd = `node bin/run-ts.mjs test/bench/embedded-host.ts`;
  const outDir = path.join(ROOT, 'bench/embedded-host');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, `${started.slice(0, 16).replace(/:/g, '')}.json`),
    `${JSON.stringify({ started, commit, files: FILES, bigMiB: BIG * 16, rows }, null, 1)}\n`,
  );
  const text = readFileSync(README, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a >= 0 && b > a)
    writeFileSync(README, text.slice(0, a) + block(rows, { started, commit, cmd }) + text.slice(b + END.length));
  else process.stderr.write(`no ${BEGIN} block in ${README}; table not written\n`);
} finally {
  await rm(tmp, { recursive: true, force: true });
}
