/**
 * `npm run bench`: the upload benchmark of issue 3 (not part of `npm test`). The emulator,
 * the baseline server and every measured uploader run in their own processes; this process
 * only orchestrates. Prints a table and writes bench/results/latest.json (one flat object,
 * numbers only, plus date and node). When test/bench/sync.ts exists, its runSyncBench()
 * figures are added.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runEmulatorCpuBench, runLatencyBench, runStartupBench } from './speed';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const RUN_TS = path.join(ROOT, 'bin/run-ts.mjs');
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const AK = 'bench-ak';
const SK = 'bench-sk';
const BUCKET = 'bench';
/** Sizes can be scaled down to check the runner itself (the keys keep their names). */
const ONE_BYTES = Number(process.env.BENCH_FILE_MIB ?? 1024) * MiB;
const BIG_BYTES = Number(process.env.BENCH_BIG_MIB ?? 4096) * MiB;
const SMALL_FILES = Number(process.env.BENCH_SMALL_FILES ?? 2000);
/**
 * BENCH_ONLY=one,resume,four,small,latency,startup,emulator,sync,ui runs only those sections (for profiling one
 * figure); unset runs everything. The baseline runs with `one`.
 */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const runs = (section: string): boolean => !ONLY || ONLY.has(section);

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

/** Writes `size` bytes: a random 16 MiB pattern, each copy stamped with its index (no two blocks alike). */
async function makeFile(file: string, size: number): Promise<void> {
  const pattern = randomBytes(16 * MiB);
  const fh = await open(file, 'w');
  try {
    for (let pos = 0, i = 0; pos < size; pos += pattern.length, i++) {
      pattern.writeUInt32LE(i, 0);
      await fh.write(pattern, 0, Math.min(pattern.length, size - pos), pos);
    }
  } finally {
    await fh.close();
  }
}

async function uploadRun(
  files: string[],
  dbFile: string,
  uploadUrl: string,
  env: Record<string, string> = {},
  onLine?: (line: string, child: ChildProcess) => void,
): Promise<ChildResult | undefined> {
  const { child, lines } = startChild(
    [RUN_TS, path.join(HERE, 'upload-child.ts'), uploadUrl, AK, SK, BUCKET, dbFile, ...files],
    env,
  );
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

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-bench-'));
  const results: Record<string, number | string> = {};
  try {
    // The emulator, in its own process.
    const emu = startChild([
      path.join(ROOT, 'bin/blocklift.mjs'),
      'emulator',
      '--port',
      '0',
      '--data',
      path.join(tmp, 'emu'),
      '--ak',
      AK,
      '--sk',
      SK,
      '--bucket',
      BUCKET,
      '--json',
    ]);
    let uploadUrl = '';
    let admin = { adminUrl: '', adminToken: '' };
    for await (const line of emu.lines) {
      const info = JSON.parse(line) as { uploadUrl: string; adminUrl: string; adminToken: string };
      uploadUrl = info.uploadUrl;
      admin = { adminUrl: info.adminUrl, adminToken: info.adminToken };
      break;
    }
    process.stderr.write(`emulator at ${uploadUrl}\n`);

    const f1 = path.join(tmp, 'one-gib.bin');
    if (runs('one') || runs('resume')) await makeFile(f1, ONE_BYTES);

    if (runs('one')) {
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
      results.baseline_mbps = baseline!.bytes / 1e6 / (baseline!.elapsedMs / 1000);

      // 1 GiB single file, end to end.
      const one = (await uploadRun([f1], path.join(tmp, 'one.db'), uploadUrl))!;
      results.upload_mbps = one.bytes / 1e6 / (one.elapsedMs / 1000);
      results.ratio = (results.upload_mbps as number) / (results.baseline_mbps as number);
      // For reading the figure: the same run without the final mkfile (the service merging 1 GiB).
      results.upload_blocks_mbps = one.bytes / 1e6 / ((one.elapsedMs - one.mkfileMs) / 1000);
      results.mkfile_s_1gib = one.mkfileMs / 1000;
      results.client_cpu_s_per_gib = one.cpuSeconds / (one.bytes / GiB);
      results.rss_mib_1gib = one.peakRssBytes / MiB;
      results.event_loop_p99_ms = one.loopP99Ms;
    }

    // Resume waste: SIGKILL at 50%, run again on the same database.
    if (runs('resume')) {
      let sentBeforeKill = 0;
      let killed = false;
      await uploadRun([f1], path.join(tmp, 'resume.db'), uploadUrl, { BENCH_REPORT_SENT: '1' }, (line, child) => {
        const [kind, a, b, c] = line.split(' ');
        if (kind === 'sent') sentBeforeKill = Number(a);
        if (kind === 'progress' && !killed && Number(b) >= Number(c) / 2) {
          killed = true;
          child.kill('SIGKILL');
        }
        void b;
      });
      const resumed = (await uploadRun([f1], path.join(tmp, 'resume.db'), uploadUrl))!;
      results.resume_waste_bytes = Math.max(0, sentBeforeKill + resumed.sentBytes - ONE_BYTES);
    }

    // 4 GiB: memory must not grow with file size.
    await rm(f1, { force: true });
    if (runs('four')) {
      const f4 = path.join(tmp, 'four-gib.bin');
      await makeFile(f4, BIG_BYTES);
      const four = (await uploadRun([f4], path.join(tmp, 'four.db'), uploadUrl))!;
      results.rss_mib_4gib = four.peakRssBytes / MiB;
      results.upload_mbps_4gib = four.bytes / 1e6 / (four.elapsedMs / 1000);
      await rm(f4, { force: true });
    }

    // 2,000 files of 4 KiB (16 large-file slots as before; small files use the engine's own budget).
    if (runs('small')) {
      const small = path.join(tmp, 'small');
      await mkdir(small);
      const names: string[] = [];
      for (let i = 0; i < SMALL_FILES; i++) {
        const p = path.join(small, `f${String(i).padStart(4, '0')}.bin`);
        await writeFile(p, randomBytes(4096));
        names.push(p);
      }
      const smallRun = (await uploadRun(names, path.join(tmp, 'small.db'), uploadUrl, { BENCH_FILES: '16' }))!;
      results.small_files_per_s = smallRun.files / (smallRun.elapsedMs / 1000);
    }

    // 500 × 64 KiB and 512 MiB at 0, 20 and 50 ms of latency; the emulator's CPU per GiB.
    if (runs('latency')) {
      Object.assign(
        results,
        await runLatencyBench({
          root: ROOT,
          tmp,
          ...admin,
          emulatorPid: emu.child.pid!,
          makeFile,
          upload: (files, dbFile, env) => uploadRun(files, dbFile, uploadUrl, env),
        }),
      );
    }
    emu.child.kill('SIGTERM');
    if (runs('startup')) Object.assign(results, runStartupBench(ROOT));
    if (runs('emulator')) Object.assign(results, runEmulatorCpuBench(ROOT));

    const syncBench = path.join(HERE, 'sync.ts');
    if (runs('sync') && existsSync(syncBench)) {
      const mod = (await import(pathToFileURL(syncBench).href)) as {
        runSyncBench?: () => Promise<Record<string, number>>;
      };
      if (mod.runSyncBench) Object.assign(results, await mod.runSyncBench());
    }
    if (runs('ui')) Object.assign(results, await (await import('./ui')).runUiBench());
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  }

  const out = {
    date: new Date().toISOString(),
    node: process.version,
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
    ...roundAll(results),
  };
  // A partial run (BENCH_ONLY) must not replace the full table.
  const outFile = path.join(ROOT, ONLY ? 'bench/results/partial.json' : 'bench/results/latest.json');
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, `${JSON.stringify(out, null, 2)}\n`);
  const width = Math.max(...Object.keys(out).map((k) => k.length));
  for (const [k, v] of Object.entries(out)) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

function roundAll(o: Record<string, number | string>): Record<string, number> {
  const r: Record<string, number> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'number') r[k] = Math.round(v * 1000) / 1000;
  return r;
}

await main();
