/**
 * One sync benchmark run in its own process (so RSS and watch handles are this run's
 * alone): `node bin/run-ts.mjs test/bench/sync-child.ts <backend> <tree> <db>`.
 * Cold: empty index → first reconciliation finished (every file indexed and queued in the
 * real engine's SQLite queue; the engine is not started, no upload is timed here).
 * Rescan: a new watch root over the full index (rows marked uploaded) → reconciled, nothing queued.
 * Prints one JSON line: {coldS, rescanS, rssMiB, watchHandles, queued, rescanQueued}.
 * BENCH_SYNC_DIAG=1: where the RSS goes, on stderr (sync-diag.ts).
 */
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

const [backend, tree, dbFile] = process.argv.slice(2) as [WatcherBackend, string, string];
const diag = process.env.BENCH_SYNC_DIAG === '1' ? (await import('./sync-diag')).startSyncDiag() : undefined;
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
// The tree was just written: a zero window queues it at once instead of timing the wait.
const options = normalizeWatchOptions({ stabilityMs: 0 });
diag?.at('init');

let t0 = performance.now();
const cold = new WatchRoot({ record, options, repo, queue: engine, backend });
const coldCounts = await cold.start();
const coldS = (performance.now() - t0) / 1000;
diag?.at('coldStarted');
const watchHandles = countInotifyWatches() ?? -1;
await cold.close();
diag?.at('coldClosed');

// "Full index, nothing to upload": the state after the engine uploaded everything. Uploading
// 100,000 files is the upload benchmark's business, so the rows are marked uploaded here.
db.prepare("UPDATE sync_files SET state = 'uploaded', etag = 'bench', remote_key = rel_path WHERE root_id = ?").run(
  record.id,
);

await diag?.beforeRescan();
t0 = performance.now();
const warm = new WatchRoot({ record, options, repo, queue: engine, backend });
const warmCounts = await warm.start();
const rescanS = (performance.now() - t0) / 1000;
const rssMiB = process.memoryUsage().rss / 1024 / 1024;
await diag?.atEnd();
await warm.close();
await engine.close();
client.close();
db.close();
process.stdout.write(
  `${JSON.stringify({ coldS, rescanS, rssMiB, watchHandles, queued: coldCounts?.newFiles ?? -1, rescanQueued: (warmCounts?.newFiles ?? -1) + (warmCounts?.changedFiles ?? 0), unchanged: warmCounts?.unchangedFiles ?? -1 })}\n`,
);
