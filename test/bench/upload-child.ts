/**
 * One measured upload run, in its own process so CPU, RSS and event-loop figures are the
 * uploader's alone. Usage (through bin/run-ts.mjs):
 *   upload-child.ts <uploadUrl> <ak> <sk> <bucket> <dbFile> <file...>
 * Prints `sent <bytes>` before each chunk request (bytes handed to mkblk/bput so far) and
 * `progress <bytesDone>` lines, then one final `result <json>` line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UploadClient } from '../../src-main/protocol/client';
import { UploadEngine } from '../../src-main/engine/engine';
import { LocalTokenSigner } from '../../src-main/engine/tokens';
import { openAppDatabase } from '../../src-main/store/app-db';
import { AccountRepo } from '../../src-main/store/account-repo';
import { SqliteTransferStore } from '../../src-main/store/transfer-repo';
import { ownPeakRssBytes } from '../helpers/peak-rss';

const [uploadUrl, ak, sk, bucket, dbFile, ...files] = process.argv.slice(2);
if (!uploadUrl || !ak || !sk || !bucket || !dbFile || files.length === 0) {
  process.stderr.write('usage: upload-child.ts <uploadUrl> <ak> <sk> <bucket> <dbFile> <file...>\n');
  process.exit(2);
}

/** The real client, counting the chunk bytes it is asked to send. */
class CountingClient extends UploadClient {
  sentBytes = 0;
  override mkblk(a: Parameters<UploadClient['mkblk']>[0]) {
    this.count(a.chunk.byteLength);
    return super.mkblk(a);
  }
  override bput(a: Parameters<UploadClient['bput']>[0]) {
    this.count(a.chunk.byteLength);
    return super.bput(a);
  }
  private count(n: number): void {
    this.sentBytes += n;
    if (report) process.stdout.write(`sent ${this.sentBytes}\n`);
  }
}
const report = process.env.BENCH_REPORT_SENT === '1';

const loop = monitorEventLoopDelay({ resolution: 10 });

/**
 * BENCH_MEMORY=1: process.memoryUsage() every 20 ms while uploading; the result's `memory`
 * gives the sample of the highest RSS (what it held then) and each part's own highest, in MiB
 * (where the resident memory goes, issue 19).
 */
const memory = process.env.BENCH_MEMORY === '1' ? sampleMemory(20) : undefined;
function sampleMemory(everyMs: number): { stop(): Record<string, unknown> } {
  const MiB = 2 ** 20;
  const parts = (m: NodeJS.MemoryUsage) => ({
    rss: m.rss / MiB,
    heapTotal: m.heapTotal / MiB,
    heapUsed: m.heapUsed / MiB,
    external: m.external / MiB,
    arrayBuffers: m.arrayBuffers / MiB,
  });
  // Linux: the resident set split into anonymous memory (heaps, buffers) and mapped files (code).
  const status = (): Record<string, number> => {
    try {
      const text = readFileSync('/proc/self/status', 'utf8');
      const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
      return { rssAnon: kib('RssAnon') / 1024, rssFile: kib('RssFile') / 1024 };
    } catch {
      return {};
    }
  };
  let atPeak: Record<string, number> = { ...parts(process.memoryUsage()), ...status() };
  const max = parts(process.memoryUsage());
  const timer = setInterval(() => {
    const now = parts(process.memoryUsage());
    if (now.rss > atPeak.rss!) atPeak = { ...now, ...status() };
    for (const k of Object.keys(max) as (keyof typeof max)[]) max[k] = Math.max(max[k], now[k]);
  }, everyMs);
  return {
    stop: () => (clearInterval(timer), { atPeakRss: atPeak, max }),
  };
}

const db = openAppDatabase(dbFile);
const store = new SqliteTransferStore(db);
const accountId = new AccountRepo(db).upsert({
  name: 'bench',
  uploadUrl,
  mgrUrl: null,
  downloadDomain: null,
  accessKey: ak,
  secretRef: null,
  tokenUrl: null,
});
const client = new CountingClient({ uploadUrl });
const engine = new UploadEngine({
  store,
  account: () => ({ client, tokens: new LocalTokenSigner(ak, sk) }),
  defaultConflict: 'overwrite',
  // BENCH_FIXED_WINDOW=1: the counts stay as configured (to compare with the window, engine/window.ts).
  ...(process.env.BENCH_FIXED_WINDOW === '1' ? { adaptiveWindow: false } : {}),
  // BENCH_BLOCK_WINDOW=1: the block count follows the round trip too (off by default, window.ts).
  ...(process.env.BENCH_BLOCK_WINDOW === '1' ? { adaptiveWindow: 'with-blocks' as const } : {}),
  limits: {
    maxFiles: Number(process.env.BENCH_FILES ?? 4),
    // BENCH_SMALL_IN_FLIGHT=N: small files (and requests) in flight before the window's factor.
    ...(process.env.BENCH_SMALL_IN_FLIGHT
      ? {
          maxSmallFiles: Number(process.env.BENCH_SMALL_IN_FLIGHT),
          maxRequests: Number(process.env.BENCH_SMALL_IN_FLIGHT),
        }
      : {}),
    ...(process.env.BENCH_BLOCKS
      ? { maxBlocks: Number(process.env.BENCH_BLOCKS), maxBlocksPerFile: Number(process.env.BENCH_BLOCKS) }
      : {}),
  },
});
let lastProgressMs = 0;
engine.onProgress((p) => {
  const t = performance.now();
  if (report && t - lastProgressMs > 20) {
    lastProgressMs = t;
    process.stdout.write(`progress ${p.id} ${p.bytesDone} ${p.size}\n`);
  }
});

let completingAtMs: number | undefined;
engine.onTransferChange((t) => {
  if (t.state === 'completing' && completingAtMs === undefined) completingAtMs = performance.now();
});

const cpu0 = process.cpuUsage();
const t0 = performance.now();
loop.enable();
// Re-running with the same db continues unfinished transfers (the resume measurement).
const unfinished = store.listTransfers(['queued', 'uploading', 'completing', 'paused', 'failed']);
if (unfinished.length === 0) {
  engine.enqueue(
    files.map((f) => ({
      accountId,
      bucket,
      key: path.basename(f),
      localPath: path.resolve(f),
      source: 'cli' as const,
    })),
  );
}
engine.start();
await engine.whenIdle();
const elapsedMs = performance.now() - t0;
const inFlight = engine.inFlight();
loop.disable();
const cpu = process.cpuUsage(cpu0);
const memoryReport = memory?.stop();
const all = store.listTransfers(['done', 'failed', 'skipped', 'canceled']);
const failed = all.filter((t) => t.state !== 'done');
const bytes = all.reduce((n, t) => n + t.size, 0);
await engine.close();
client.close();
db.close();
process.stdout.write(
  `result ${JSON.stringify({
    elapsedMs,
    /** Time spent in the first mkfile (the service merging), from the first 'completing'. */
    mkfileMs: completingAtMs === undefined ? 0 : t0 + elapsedMs - completingAtMs,
    bytes,
    files: all.length,
    failed: failed.map((t) => ({ key: t.key, error: t.lastError })),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssBytes: ownPeakRssBytes(),
    loopP99Ms: loop.percentile(99) / 1e6,
    sentBytes: client.sentBytes,
    // The in-flight window at the end (engine.inFlight(): what the round trip made of it).
    window: inFlight,
    ...(memoryReport ? { memory: memoryReport } : {}),
  })}\n`,
);
