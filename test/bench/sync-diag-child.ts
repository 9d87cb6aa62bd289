/**
 * Diagnostic twin of sync-child.ts (same work, same order, same `rssMiB` taken at the same
 * point), which also prints to stderr, one JSON line each, where the RSS is at four points
 * (init, cold scan done, cold root closed, END = the measured point): RssAnon/RssFile from
 * /proc/self/status, process.memoryUsage() and V8's spaces. DIAG_SMAPS=1 adds
 * smaps_rollup, DIAG_MAPS=1 the mappings over 4 MiB (glibc's thread arenas are the 64
 * MiB-aligned anonymous ones), DIAG_GC=1 (with node --expose-gc) a snapshot after a full
 * GC, DIAG_PROF=1 the rescan's allocations by call site (sampling heap profiler, garbage
 * included). Not part of `npm run bench`:
 * `node bin/run-ts.mjs test/bench/sync-diag-child.ts parcel <tree> <db>` (bench/profiles/2026-11-28-sync-rss-ab.txt).
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { UploadEngine } from '../../src-main/engine/engine';
import { LocalTokenSigner } from '../../src-main/engine/tokens';
import { UploadClient } from '../../src-main/protocol/client';
import { AccountRepo } from '../../src-main/store/account-repo';
import { openAppDatabase } from '../../src-main/store/app-db';
import { SyncRepo } from '../../src-main/store/sync-repo';
import { SqliteTransferStore } from '../../src-main/store/transfer-repo';
import { normalizeWatchOptions } from '../../src-main/sync/options';
import { countInotifyWatches } from '../../src-main/sync/os-watch-handles';
import { WatchRoot } from '../../src-main/sync/watch-root';
import type { WatcherBackend } from '../../src-main/sync/watcher';

const M = (b: number) => Math.round((b / 1048576) * 10) / 10;
function snap(label: string): Record<string, unknown> {
  const mu = process.memoryUsage();
  const st = readFileSync('/proc/self/status', 'utf8');
  const g = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(st)?.[1] ?? -1) / 1024;
  const sp: Record<string, number> = {};
  for (const s of v8.getHeapSpaceStatistics()) sp[s.space_name.replace('_space', '')] = M(s.space_size);
  const threads = g('Threads') * 1024;
  return {
    label,
    rss: M(mu.rss),
    anon: Math.round(g('RssAnon') * 10) / 10,
    file: Math.round(g('RssFile') * 10) / 10,
    heapT: M(mu.heapTotal),
    heapU: M(mu.heapUsed),
    ext: M(mu.external),
    ab: M(mu.arrayBuffers),
    threads,
    sp,
  };
}
const out: Record<string, unknown>[] = [];
const [backend, tree, dbFile] = process.argv.slice(2) as [WatcherBackend, string, string];
const db = openAppDatabase(dbFile);
const accountId = new AccountRepo(db).upsert({
  name: 'bench',
  uploadUrl: 'http://127.0.0.1:9',
  mgrUrl: null,
  downloadDomain: null,
  accessKey: 'ak',
  secretRef: null,
  tokenUrl: null,
});
const client = new UploadClient({ uploadUrl: 'http://127.0.0.1:9' });
const engine = new UploadEngine({
  store: new SqliteTransferStore(db),
  account: () => ({ client, tokens: new LocalTokenSigner('ak', 'sk') }),
});
const repo = new SyncRepo(db);
const record = repo.addRoot({ path: tree, accountId, bucket: 'bench', prefix: '', options: {} });
const options = normalizeWatchOptions({ stabilityMs: 0 });
out.push(snap('init'));
let t0 = performance.now();
const cold = new WatchRoot({ record, options, repo, queue: engine, backend });
const coldCounts = await cold.start();
const coldS = (performance.now() - t0) / 1000;
out.push(snap('coldStarted'));
const watchHandles = countInotifyWatches() ?? -1;
await cold.close();
out.push(snap('coldClosed'));
db.prepare("UPDATE sync_files SET state = 'uploaded', etag = 'bench', remote_key = rel_path WHERE root_id = ?").run(
  record.id,
);
// Only with DIAG_PROF: an inspector session is no part of what is measured otherwise.
const sess = process.env.DIAG_PROF ? new (await import('node:inspector/promises')).Session() : undefined;
sess?.connect();
if (sess)
  await sess.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
t0 = performance.now();
const warm = new WatchRoot({ record, options, repo, queue: engine, backend });
const warmCounts = await warm.start();
const rescanS = (performance.now() - t0) / 1000;
const rssMiB = process.memoryUsage().rss / 1024 / 1024;
out.push(snap('END'));
if (sess) {
  const { profile } = (await sess.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
  interface Node {
    callFrame: { functionName: string; url: string; lineNumber: number };
    selfSize: number;
    children: Node[];
  }
  const agg = new Map<string, number>();
  const walk = (n: Node, stack: string[]) => {
    const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
    const st = [...stack, k];
    if (n.selfSize) {
      const key = st.slice(-3).join(' < ');
      agg.set(key, (agg.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, st);
  };
  walk(profile.head, []);
  const tot = [...agg.values()].reduce((a, b) => a + b, 0);
  out.push({ total: M(tot) });
  for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 25)) out.push({ mib: M(v), k });
}
if (process.env.DIAG_SMAPS)
  out.push({
    smaps: readFileSync('/proc/self/smaps_rollup', 'utf8').replace(/\s+kB/g, '').split('\n').slice(1, 12).join(' '),
  });
if (process.env.DIAG_MAPS) {
  // big anon mappings by size (RSS)
  const sm = readFileSync('/proc/self/smaps', 'utf8').split('\n');
  const rows: string[] = [];
  let head = '';
  for (const l of sm) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)) head = l;
    else if (l.startsWith('Rss:')) {
      const kb = Number(l.split(/\s+/)[1]);
      if (kb > 4096) rows.push(`${kb >> 10}M ${head.split(/\s+/).slice(0, 2).join(' ')} ${head.split(/\s+/)[5] ?? ''}`);
    }
  }
  out.push({ maps: rows.join(' | ') });
}
if (process.env.DIAG_GC && (globalThis as { gc?: () => void }).gc) {
  (globalThis as { gc: () => void }).gc();
  out.push(snap('afterGC'));
}
await warm.close();
await engine.close();
client.close();
db.close();
for (const o of out) process.stderr.write(JSON.stringify(o) + '\n');
process.stdout.write(
  `${JSON.stringify({ coldS, rescanS, rssMiB, watchHandles, queued: coldCounts?.newFiles ?? -1, rescanQueued: (warmCounts?.newFiles ?? -1) + (warmCounts?.changedFiles ?? 0), unchanged: warmCounts?.unchangedFiles ?? -1 })}\n`,
);
