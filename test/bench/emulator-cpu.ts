/**
 * CPU the emulator spends per GiB uploaded (issue 12): `node bin/run-ts.mjs
 * test/bench/emulator-cpu.ts` (BENCH_MIB=1024, BENCH_CONCURRENCY=2, BENCH_CHUNK_MIB=4).
 * Starts `blocklift emulator` in its own process (with the V8 flags the app gives its
 * embedded one, emulator/node-flags.ts; BENCH_NODE_ARGS adds more), uploads BENCH_MIB of random bytes from
 * this process with a minimal node:http client (4 MiB blocks, each block in chunks of
 * BENCH_CHUNK_MIB: mkblk then bput, blocks BENCH_CONCURRENCY at a time, then mkfile), and
 * reads the emulator's user+system CPU (the whole process, and its request thread) from
 * /proc before and after (Linux only). Not part
 * of `npm test`.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { EMULATOR_NODE_FLAGS } from '../../src-main/emulator/node-flags';
import { cpuSeconds, cpuSplit } from '../helpers/proc-cpu';

const MiB = 1024 * 1024;
const TOTAL = Number(process.env.BENCH_MIB ?? 1024) * MiB;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
const CHUNK = Number(process.env.BENCH_CHUNK_MIB ?? 4) * MiB;
const BLOCK = 4 * MiB;

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');

/** user+system CPU of every thread of `pid`, by thread id, with the thread's name. */
function threadCpu(pid: number): Map<number, { name: string; cpu: number }> {
  const out = new Map<number, { name: string; cpu: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, {
        name: tid === pid ? 'main' : process.env.BENCH_BY_TID ? `${name}-${tid}` : name,
        cpu: cpuSeconds(pid, tid),
      });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** CPU spent between two samples, summed by thread name (a thread that ended in between is not counted). */
function threadDelta(
  before: Map<number, { name: string; cpu: number }>,
  after: Map<number, { name: string; cpu: number }>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, a] of after) out[a.name] = (out[a.name] ?? 0) + a.cpu - (before.get(tid)?.cpu ?? 0);
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-emu-cpu-'));
  const child = spawn(
    process.execPath,
    [
      // As the app starts its embedded emulator (emulator/node-flags.ts).
      ...EMULATOR_NODE_FLAGS,
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'bin/blocklift.mjs',
      'emulator',
      '--json',
      '--port',
      '0',
      '--data',
      dir,
      '--ak',
      'ak',
      '--sk',
      'sk',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const info = await new Promise<{ uploadUrl: string }>((resolve) =>
    // Other lines (BENCH_NODE_ARGS=--trace-gc prints to stdout) go to stderr.
    createInterface({ input: child.stdout! }).on('line', (l) =>
      l.startsWith('{') ? resolve(JSON.parse(l) as { uploadUrl: string }) : process.stderr.write(`${l}\n`),
    ),
  );
  const policy = b64(JSON.stringify({ scope: 'local:cpu.bin', deadline: Date.now() + 3_600_000, overwrite: 1 }));
  const token = `UpToken ak:${b64(createHmac('sha1', 'sk').update(policy).digest('hex'))}:${policy}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const batch = randomUUID();
  const post = (p: string, body: Buffer | string, type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = http.request(
        `${info.uploadUrl}${p}`,
        {
          method: 'POST',
          agent,
          headers: {
            Authorization: token,
            UploadBatch: batch,
            'Content-Type': type,
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${p}: ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const data = randomBytes(BLOCK); // every block carries the same bytes: the client stays cheap
  const blocks = Math.ceil(TOTAL / BLOCK);
  const ctxs: string[] = new Array<string>(blocks);
  let next = 0;
  const threadsBefore = threadCpu(child.pid!);
  const cpuBefore = cpuSeconds(child.pid!);
  const mainBefore = cpuSplit(child.pid!, child.pid!); // the main (request) thread's id is the pid
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < blocks; i = next++) {
        let r = await post(`/mkblk/${BLOCK}/${i}`, data.subarray(0, CHUNK), 'application/octet-stream');
        for (let off = CHUNK; off < BLOCK; off += CHUNK)
          r = await post(
            `/bput/${r.ctx as string}/${off}`,
            data.subarray(off, off + CHUNK),
            'application/octet-stream',
          );
        ctxs[i] = r.ctx as string;
      }
    }),
  );
  await post(`/mkfile/${blocks * BLOCK}`, ctxs.join(','), 'text/plain');
  const wallS = (Date.now() - started) / 1000;
  const cpu = cpuSeconds(child.pid!) - cpuBefore;
  const mainAfter = cpuSplit(child.pid!, child.pid!);
  const mainUser = mainAfter.user - mainBefore.user;
  const mainSystem = mainAfter.system - mainBefore.system;
  const mainCpu = mainUser + mainSystem;
  const byThread = threadDelta(threadsBefore, threadCpu(child.pid!));
  // The emulator's peak resident set (VmHWM), before it stops.
  const peakRssMiB = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid!}/status`, 'utf8'))![1]) / 1024;
  const gib = (blocks * BLOCK) / (1024 * MiB);
  agent.destroy();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
  console.log(
    JSON.stringify({
      gib,
      chunkMiB: CHUNK / MiB,
      concurrency: CONCURRENCY,
      emulatorCpuSeconds: Number(cpu.toFixed(2)),
      cpuSecondsPerGiB: Number((cpu / gib).toFixed(2)),
      requestThreadCpuSecondsPerGiB: Number((mainCpu / gib).toFixed(2)),
      requestThreadSystemCpuSecondsPerGiB: Number((mainSystem / gib).toFixed(2)),
      wallSeconds: Number(wallS.toFixed(2)),
      mibPerSecond: Number(((gib * 1024) / wallS).toFixed(0)),
      peakRssMiB: Number(peakRssMiB.toFixed(1)),
      cpuSecondsPerGiBByThread: Object.fromEntries(
        Object.entries(byThread).map(([name, s]) => [name, Number((s / gib).toFixed(2))]),
      ),
    }),
  );
}

await main();
