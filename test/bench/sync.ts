/**
 * Sync benchmark of issue 4, called by test/bench/run.ts (`npm run bench`) or alone:
 * `node bin/run-ts.mjs test/bench/sync.ts`. A tree of BENCH_SYNC_FILES (100,000) small
 * files in BENCH_SYNC_FOLDERS (1,000) folders; each watcher backend runs in its own child
 * process (sync-child.ts). The default backend's figures are the sync_* keys; the other
 * backend's are sync_<backend>_* for comparison.
 * Targets (rescan, cold scan, RSS, watch handles) are in targets.ts.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WATCHER_BACKEND, WATCHER_BACKENDS, type WatcherBackend } from '../../src-main/sync/watcher';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const FILES = Number(process.env.BENCH_SYNC_FILES ?? 100_000);
const FOLDERS = Number(process.env.BENCH_SYNC_FOLDERS ?? 1000);

interface ChildFigures {
  coldS: number;
  rescanS: number;
  rssMiB: number;
  watchHandles: number;
  queued: number;
  rescanQueued: number;
  unchanged: number;
}

async function makeTree(dir: string): Promise<void> {
  const perFolder = Math.ceil(FILES / FOLDERS);
  for (let d = 0; d < FOLDERS; d++) {
    const sub = path.join(dir, `d${String(d).padStart(4, '0')}`);
    await mkdir(sub);
    const n = Math.min(perFolder, FILES - d * perFolder);
    await Promise.all(Array.from({ length: n }, (_, i) => writeFile(path.join(sub, `f${i}.txt`), `${d}:${i}\n`)));
  }
}

function runChild(backend: WatcherBackend, tree: string, dbFile: string): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/run-ts.mjs'), path.join(HERE, 'sync-child.ts'), backend, tree, dbFile],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`sync bench child (${backend}) exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as ChildFigures);
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

export async function runSyncBench(): Promise<Record<string, number>> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-sync-bench-'));
  try {
    const tree = path.join(tmp, 'tree');
    await mkdir(tree);
    await makeTree(tree);
    const out: Record<string, number> = {};
    for (const backend of WATCHER_BACKENDS) {
      const f = await runChild(backend, tree, path.join(tmp, `${backend}.db`));
      if (f.queued !== FILES || f.rescanQueued !== 0 || f.unchanged !== FILES) {
        throw new Error(
          `sync bench (${backend}): queued ${f.queued}, rescan queued ${f.rescanQueued}, unchanged ${f.unchanged}; expected ${FILES}, 0, ${FILES}`,
        );
      }
      const p = backend === DEFAULT_WATCHER_BACKEND ? 'sync_' : `sync_${backend}_`;
      out[`${p}cold_s`] = f.coldS;
      out[`${p}rescan_s`] = f.rescanS;
      out[`${p}rss_mib`] = f.rssMiB;
      out[`${p}watch_handles`] = f.watchHandles;
    }
    out.sync_files = FILES;
    out.sync_folders = FOLDERS;
    return out;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await runSyncBench();
  for (const [k, v] of Object.entries(r)) process.stdout.write(`${k.padEnd(28)} ${Math.round(v * 1000) / 1000}\n`);
}
