/**
 * Issue 20 "done when", as a script (not part of `npm test`): SIGKILL `blocklift upload`
 * KILLS times (default 25) while it uploads a tree of 40 files from 0 B to 160 MiB
 * (≈ 705 MiB) to an emulator whose bandwidth fault (BW bytes/s per request, default
 * 1.5 MB/s) keeps the upload running through every kill, then run it once more: every
 * file's line must be `done` (verified) or `unchanged`, none `skipped`, and every stored
 * object must be the file. Prints a JSON summary; exit 1 on any problem.
 *   node bin/run-ts.mjs test/chaos/kill-upload.ts [kills]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { etagOfBuffer } from '../../src-main/protocol/etag';
import { startTestEmulator } from '../helpers/emulator';

const checkout = path.resolve(import.meta.dirname, '../..');
const kills = Number(process.argv[2] ?? 25);
const MiB = 1024 * 1024;
const SIZES = [
  0,
  1,
  100,
  4096,
  65536,
  262144,
  262145,
  MiB,
  2 * MiB + 3,
  4 * MiB - 1,
  4 * MiB,
  4 * MiB + 1,
  5 * MiB,
  6 * MiB + 7,
  8 * MiB,
  8 * MiB + 1,
  10 * MiB,
  12 * MiB + 5,
  16 * MiB,
  20 * MiB + 9,
  24 * MiB,
  3 * MiB,
  300_000,
  700_000,
  1_500_000,
  3_000_000,
  3_900_000,
  7,
  77,
  777,
  7777,
  77_777,
  32 * MiB + 1,
  40 * MiB,
  48 * MiB + 11,
  64 * MiB,
  96 * MiB + 3,
  128 * MiB,
  160 * MiB,
  2,
];

const dir = await mkdtemp(path.join(os.tmpdir(), 'bl-kill-run-'));
const src = path.join(dir, 'tree');
await mkdir(src, { recursive: true });
const etags = new Map<string, string>();
for (let i = 0; i < SIZES.length; i++) {
  const name = `f${String(i).padStart(2, '0')}.bin`;
  const data = randomBytes(SIZES[i]!);
  await writeFile(path.join(src, name), data);
  etags.set(`c/${name}`, etagOfBuffer(data));
}
const total = SIZES.reduce((a, b) => a + b, 0);
const emu = await startTestEmulator({
  dataDir: path.join(dir, 'emulator'),
  faults: { bandwidthBytesPerSec: Number(process.env.BW ?? 1_500_000) },
});
const env = {
  ...process.env,
  BLOCKLIFT_DATA: path.join(dir, 'data'),
  BLOCKLIFT_AK: emu.config.accessKey,
  BLOCKLIFT_SK: emu.config.secretKey,
};
const args = [
  path.join(checkout, 'bin/blocklift.mjs'),
  'upload',
  src,
  '--bucket',
  emu.bucket,
  '--upload-url',
  emu.uploadUrl,
  '--mgr-url',
  emu.mgrUrl,
  '--db',
  path.join(dir, 'cli.db'),
  '--json',
  '--prefix',
  'c/',
];

function run(
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

let seed = 20;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
let killed = 0;
let finishedEarly = 0;
const storedAtKill: number[] = [];
const t0 = Date.now();
const doneInDb = (): number => {
  try {
    const d = new Database(path.join(dir, 'cli.db'), { readonly: true, fileMustExist: true });
    try {
      return d
        .prepare("SELECT COUNT(*) FROM transfers WHERE state IN ('done','skipped','failed')")
        .pluck()
        .get() as number;
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
};
const endedAtKill: number[] = [];
while (killed < kills) {
  if (doneInDb() === SIZES.length) break; // the upload finished: no kill can interrupt it any more
  // The command takes about 1 s to open its queue on this machine: kill between 0.8 and 4 s.
  const r = await run(800 + rnd() * 3200);
  if (r.signal === 'SIGKILL') {
    killed++;
    storedAtKill.push(emu.objects.list(emu.bucket, 'c/').length);
    endedAtKill.push(doneInDb());
  } else {
    finishedEarly++;
    if (finishedEarly <= 3 || process.env.VERBOSE)
      console.error(
        `run ended by itself: code ${r.code} after kill ${killed}; stderr: ${r.stderr.slice(-600)}; stdout lines: ${r.stdout.trim().split('\n').length}; statuses: ${[...r.stdout.matchAll(/"status":"(\w+)"/g)].map((m) => m[1]).join(',')}`,
      );
  }
}
const final = await run();
const lines = final.stdout
  .trim()
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { key?: string; status: string; verified?: boolean; hash?: string; warning?: string });
const byStatus: Record<string, number> = {};
for (const l of lines) byStatus[l.status] = (byStatus[l.status] ?? 0) + 1;
const bad: string[] = [];
for (const l of lines) {
  if (l.status === 'done' && l.verified !== true) bad.push(`done not verified: ${JSON.stringify(l)}`);
  if (l.status !== 'done' && l.status !== 'unchanged') bad.push(`not done: ${JSON.stringify(l)}`);
  if (l.key && l.hash !== etags.get(l.key)) bad.push(`hash differs: ${JSON.stringify(l)}`);
}
for (const [key, etag] of etags)
  if (emu.objects.stat(emu.bucket, key)?.hash !== etag) bad.push(`stored object differs: ${key}`);
const alreadyThere = lines.filter((l) => l.warning?.startsWith('already there')).length;
// Transfers the database holds as done-by-"already there" over all runs.
const db = new Database(path.join(dir, 'cli.db'), { readonly: true });
const rows = db.prepare('SELECT key, state, etag, remote_hash, warning FROM transfers').all() as Array<{
  key: string;
  state: string;
  etag: string | null;
  remote_hash: string | null;
  warning: string | null;
}>;
db.close();
const summary = {
  checkout,
  files: SIZES.length,
  totalBytes: total,
  largest: Math.max(...SIZES),
  kills: killed,
  runsThatFinishedBeforeTheirKill: finishedEarly,
  objectsStoredAtEachKill: storedAtKill.join(' '),
  transfersEndedInDbAtEachKill: endedAtKill.join(' '),
  seconds: Math.round((Date.now() - t0) / 1000),
  finalExit: final.code,
  finalLines: lines.length,
  finalByStatus: byStatus,
  finalAlreadyThereLines: alreadyThere,
  dbByState: rows.reduce<Record<string, number>>((a, r) => ((a[r.state] = (a[r.state] ?? 0) + 1), a), {}),
  dbDoneAlreadyThere: rows.filter((r) => r.state === 'done' && r.warning?.startsWith('already there')).length,
  dbDoneVerified: rows.filter((r) => r.state === 'done' && r.remote_hash !== null && r.remote_hash === r.etag).length,
  problems: bad,
};
console.log(JSON.stringify(summary, null, 2));
await emu.close();
await rm(dir, { recursive: true, force: true });
process.exit(bad.length === 0 ? 0 : 1);
