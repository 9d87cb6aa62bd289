/**
 * The speed sections of `npm run bench` (issue 12), called by run.ts with its emulator:
 * - `latency`: 500 × 64 KiB and one 512 MiB file at 0, 20 and 50 ms added to every request
 *   (the emulator's latency fault, set through its admin route), with the engine's default
 *   limits; the emulator's CPU seconds per GiB from the 0 ms 512 MiB run; for the small
 *   files, each side's CPU ms per file and the uploader's event-loop delay (p99).
 * - `startup`: `blocklift --version` from the compiled dist (median of 5 after one warm-up,
 *   which rebuilds dist when it is stale).
 * - `emulator`: the emulator alone with a minimal client (emulator-cpu.ts, 1 GiB): its CPU
 *   seconds per GiB, in all and on its request thread, and its throughput.
 * Every figure comes with `<key>_load1`, the 1-minute load average when it was taken: the
 * machine is shared, and a figure means little without it. Targets are in targets.ts.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const LATENCIES_MS = [0, 20, 50];
const SMALL_COUNT = Number(process.env.BENCH_SMALL64_FILES ?? 500);
const BIG_BYTES = Number(process.env.BENCH_LATENCY_BIG_MIB ?? 512) * MiB;

export interface SpeedContext {
  root: string;
  tmp: string;
  adminUrl: string;
  adminToken: string;
  emulatorPid: number;
  makeFile(file: string, size: number): Promise<void>;
  upload(
    files: string[],
    dbFile: string,
    env?: Record<string, string>,
  ): Promise<{ elapsedMs: number; files: number; bytes: number; cpuSeconds: number; loopP99Ms: number } | undefined>;
}

type Figures = Record<string, number>;

function load1(): number {
  return os.loadavg()[0]!;
}

async function setLatency(ctx: SpeedContext, ms: number): Promise<void> {
  const res = await fetch(`${ctx.adminUrl}/faults`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(ms > 0 ? { latencyMs: ms } : {}),
  });
  if (!res.ok) throw new Error(`setting the emulator's latency answered ${res.status}: ${await res.text()}`);
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line (11 and 12 after "pid (comm) ").
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function runLatencyBench(ctx: SpeedContext): Promise<Figures> {
  const out: Figures = {};
  const smallDir = path.join(ctx.tmp, 'small64');
  await mkdir(smallDir, { recursive: true });
  const smallFiles: string[] = [];
  for (let i = 0; i < SMALL_COUNT; i++) {
    const p = path.join(smallDir, `s${String(i).padStart(4, '0')}.bin`);
    await writeFile(p, randomBytes(64 * 1024));
    smallFiles.push(p);
  }
  const big = path.join(ctx.tmp, 'big512.bin');
  await ctx.makeFile(big, BIG_BYTES);
  try {
    for (const ms of LATENCIES_MS) {
      await setLatency(ctx, ms);
      const emuSmall0 = cpuSecondsOf(ctx.emulatorPid);
      const s = (await ctx.upload(smallFiles, path.join(ctx.tmp, `small64-${ms}.db`)))!;
      const emuSmall = cpuSecondsOf(ctx.emulatorPid) - emuSmall0;
      out[`small64_files_per_s_${ms}ms`] = s.files / (s.elapsedMs / 1000);
      out[`small64_files_per_s_${ms}ms_load1`] = load1();
      out[`small64_client_cpu_ms_per_file_${ms}ms`] = (s.cpuSeconds * 1000) / s.files;
      // The other side of the same run: with both on one 2-core machine, either can be the ceiling.
      out[`small64_emulator_cpu_ms_per_file_${ms}ms`] = (emuSmall * 1000) / s.files;
      // Small files are read with synchronous calls (under a per-turn budget): the loop must stay free.
      out[`small64_event_loop_p99_ms_${ms}ms`] = s.loopP99Ms;

      const cpu0 = cpuSecondsOf(ctx.emulatorPid);
      const b = (await ctx.upload([big], path.join(ctx.tmp, `big512-${ms}.db`)))!;
      const emuCpu = cpuSecondsOf(ctx.emulatorPid) - cpu0;
      out[`big512_mbps_${ms}ms`] = b.bytes / 1e6 / (b.elapsedMs / 1000);
      out[`big512_mbps_${ms}ms_load1`] = load1();
      if (ms === 0) {
        out.emulator_cpu_s_per_gib = emuCpu / (b.bytes / GiB);
        out.emulator_cpu_s_per_gib_load1 = load1();
      }
    }
  } finally {
    await setLatency(ctx, 0);
    await rm(big, { force: true });
    await rm(smallDir, { recursive: true, force: true });
  }
  out.small64_ratio_20ms = out.small64_files_per_s_20ms! / out.small64_files_per_s_0ms!;
  out.small64_ratio_50ms = out.small64_files_per_s_50ms! / out.small64_files_per_s_0ms!;
  out.big512_ratio_20ms = out.big512_mbps_20ms! / out.big512_mbps_0ms!;
  out.big512_ratio_50ms = out.big512_mbps_50ms! / out.big512_mbps_0ms!;
  return out;
}

/** Wall time of `node bin/blocklift.mjs --version` in ms, median of 5 after a warm-up. */
export function runStartupBench(root: string): Figures {
  const bin = path.join(root, 'bin/blocklift.mjs');
  const once = (): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [bin, '--version'], { cwd: root, encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`blocklift --version exited ${r.status}: ${r.stderr}`);
    if (r.stderr.includes('rebuilding') || r.stderr.includes('tsx')) return Number.NaN;
    return ms;
  };
  // For reading the figure on a busy machine: a bare `node -e 0` started the same way.
  const bare = Array.from({ length: 5 }, () => {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return performance.now() - t0;
  }).sort((a, b) => a - b)[2]!;
  once(); // builds dist when it is stale
  const times = Array.from({ length: 5 }, once).sort((a, b) => a - b);
  if (times.some(Number.isNaN)) throw new Error('blocklift --version did not run from a current dist');
  return { startup_ms: times[2]!, startup_ms_load1: load1(), node_bare_startup_ms: bare };
}

/** Runs emulator-cpu.ts (the emulator in its own process, a minimal node:http client) and keeps its figures. */
export function runEmulatorCpuBench(root: string): Figures {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/run-ts.mjs'), 'test/bench/emulator-cpu.ts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`emulator-cpu.ts exited ${r.status}`);
  const line = r.stdout.trim().split('\n').at(-1)!;
  const m = JSON.parse(line) as {
    cpuSecondsPerGiB: number;
    requestThreadCpuSecondsPerGiB: number;
    mibPerSecond: number;
  };
  return {
    emulator_min_cpu_s_per_gib: m.cpuSecondsPerGiB,
    emulator_min_request_thread_cpu_s_per_gib: m.requestThreadCpuSecondsPerGiB,
    emulator_min_mib_per_s: m.mibPerSecond,
    emulator_min_load1: load1(),
  };
}
