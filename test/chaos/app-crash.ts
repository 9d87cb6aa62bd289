import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BUCKET } from '../../src-main/emulator/server';
import { etagOfBuffer } from '../../src-main/protocol/etag';
import { prng, waitFor, type ChaosContext } from './context';
import { must, startServe, stopServe, type ServeChild } from './serve-rig';

interface Row {
  id: number;
  key: string;
  state: string;
  remote_hash: string | null;
  etag: string | null;
  local_path: string;
}

/**
 * Section: `blocklift serve` (a child, its embedded emulator inside it) with a watched folder
 * and manual transfers at once, SIGKILLed at seeded random moments and restarted on the same
 * data folder, new files landing in the watched folder between runs. At the end: every file
 * is in the emulator once, with the hash of its bytes; the database holds one done transfer
 * per key and version, none done without a hash, passes `PRAGMA integrity_check`; and the
 * transfer the user paused before the first kill is still paused.
 */
export async function appCrashes(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const dir = path.join(ctx.root, 'app-crash');
  const data = path.join(dir, 'data');
  const watched = path.join(dir, 'watched');
  const manual = path.join(dir, 'manual');
  await mkdir(watched, { recursive: true });
  await mkdir(manual, { recursive: true });
  const long = ctx.params.form === 'long';
  const kills = long ? 30 : 5;
  const rnd = prng(ctx.seed + 13);
  const size = () => 200_000 + Math.floor(rnd() * (long ? 6_000_000 : 2_500_000));
  for (let i = 0; i < (long ? 12 : 4); i++) await writeFile(path.join(watched, `w${i}.bin`), randomBytes(size()));
  const manualFiles: string[] = [];
  for (let i = 0; i < (long ? 8 : 3); i++) {
    const f = path.join(manual, `m${i}.bin`);
    await writeFile(f, randomBytes(size()));
    manualFiles.push(f);
  }
  const pausedFile = path.join(dir, 'paused.bin');
  await writeFile(pausedFile, randomBytes(8_000_000));
  const spawnOpts = { cwd: dir };

  let s = await startServe(ctx, data, spawnOpts);
  let pausedId: number;
  try {
    // The paused one first and alone, so it is paused before the engine reaches its end.
    const p = await must<{ queued: number[] }>(s, 'transfers.add', {
      paths: [pausedFile],
      target: { bucket: DEFAULT_BUCKET, prefix: 'p/' },
    });
    pausedId = p.queued[0]!;
    const { count } = await must<{ count: number }>(s, 'transfers.pause', { ids: [pausedId] });
    if (count !== 1) rec.fail(`transfers.pause of transfer ${pausedId} answered count ${count}`);
    // A running transfer stops once its chunks in flight commit: wait for that, not for a time.
    let state = '';
    await waitFor(async () => {
      state = (await must<{ state: string }>(s, 'transfers.get', { id: pausedId })).state;
      return !['queued', 'hashing', 'uploading', 'completing'].includes(state);
    }, 60_000);
    if (state !== 'paused') rec.fail(`transfers.pause left transfer ${pausedId} ${state}`);
    await must(s, 'roots.add', { path: watched, bucket: DEFAULT_BUCKET, prefix: 'w/' });
    await must(s, 'transfers.add', { paths: manualFiles, target: { bucket: DEFAULT_BUCKET, prefix: 'm/' } });
  } catch (e) {
    s.proc.child.kill('SIGKILL');
    await s.proc.exited;
    throw e;
  }

  let killed = 0;
  let extra = 0;
  for (;;) {
    if (killed === kills) break;
    // A seeded moment: while it scans, hashes, uploads or commits.
    await new Promise((r) => setTimeout(r, 150 + rnd() * (long ? 2500 : 1500)));
    s.proc.child.kill('SIGKILL');
    await s.proc.exited;
    killed++;
    rec.fault('app SIGKILL');
    // The user keeps working while the app is down: a new file, now and then a new version.
    await writeFile(path.join(watched, `x${extra++}.bin`), randomBytes(size()));
    if (killed % 3 === 0) await writeFile(path.join(watched, 'w0.bin'), randomBytes(size()));
    s = await startServe(ctx, data, spawnOpts);
  }
  rec.report.crashesSurvived += killed;

  const dbFile = path.join(data, 'blocklift.db');
  const localFiles = [
    ...(await readdir(watched)).map((n) => ({ file: path.join(watched, n), key: `w/${n}` })),
    ...manualFiles.map((f) => ({ file: f, key: `m/${path.basename(f)}` })),
  ];
  const etags = new Map<string, string>();
  for (const f of localFiles) etags.set(f.key, etagOfBuffer(await readFile(f.file)));
  const emuDbFile = path.join(data, 'emulator', 'emulator.db');
  // Settled: nothing left to run, and every file's latest bytes are in the emulator.
  const settled = () => {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    const emu = new Database(emuDbFile, { readonly: true, fileMustExist: true });
    try {
      const open = db
        .prepare(
          `SELECT COUNT(*) AS n FROM transfers WHERE state NOT IN ('done','failed','canceled','skipped','paused')`,
        )
        .get() as { n: number };
      const hashOf = emu.prepare(`SELECT hash FROM objects WHERE bucket = ? AND key = ?`);
      const stored = (key: string) => (hashOf.get(DEFAULT_BUCKET, key) as { hash: string } | undefined)?.hash;
      return open.n === 0 && [...etags].every(([key, etag]) => stored(key) === etag);
    } finally {
      db.close();
      emu.close();
    }
  };
  const ok = await waitFor(settled, long ? 600_000 : 120_000, 250);
  if (!ok)
    rec.fail(
      `after ${killed} SIGKILLs the app did not finish its queue (reproduce: --only app-crash --seed ${ctx.seed})`,
    );
  await stopCleanly(ctx, s);
  await checkStore(ctx, dbFile, emuDbFile, localFiles, pausedId);
  rec.note(
    `${localFiles.length} files (watched + manual) through ${killed} SIGKILLs of blocklift serve at seeded moments`,
  );
}

/** SIGTERM, then exit 0 (in-flight chunks commit, the database closes). */
async function stopCleanly(ctx: ChaosContext, s: ServeChild): Promise<void> {
  const code = await stopServe(s);
  if (code !== 0) ctx.rec.fail(`blocklift serve exited ${code} on SIGTERM: ${s.proc.stderr().slice(0, 500)}`);
}

async function checkStore(
  ctx: ChaosContext,
  dbFile: string,
  emuDbFile: string,
  localFiles: Array<{ file: string; key: string }>,
  pausedId: number,
): Promise<void> {
  const { rec } = ctx;
  const db = new Database(dbFile, { readonly: true });
  const emu = new Database(emuDbFile, { readonly: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') rec.fail(`PRAGMA integrity_check of the app's database: ${String(integrity)}`);
    const rows = db.prepare(`SELECT id, key, state, remote_hash, etag, local_path FROM transfers`).all() as Row[];
    const seen = new Set<string>();
    for (const r of rows.filter((x) => x.state === 'done')) {
      if (!r.remote_hash || r.remote_hash !== r.etag)
        rec.fail(
          `transfer ${r.id} (${r.key}) is done without a verified hash (service ${r.remote_hash}, file ${r.etag})`,
        );
      const version = `${r.key}\0${r.remote_hash}`;
      if (seen.has(version)) rec.fail(`${r.key} (hash ${r.remote_hash}) was uploaded more than once`);
      seen.add(version);
    }
    const paused = rows.find((r) => r.id === pausedId);
    if (paused?.state !== 'paused')
      rec.fail(`transfer ${pausedId}, paused by the user, is ${paused?.state ?? 'gone'} after the restarts`);
    const objects = emu.prepare(`SELECT key, hash FROM objects WHERE bucket = ?`).all(DEFAULT_BUCKET) as Array<{
      key: string;
      hash: string;
    }>;
    const byKey = new Map(objects.map((o) => [o.key, o.hash]));
    const expected = new Set(localFiles.map((f) => f.key));
    for (const o of objects)
      if (!expected.has(o.key)) rec.fail(`the emulator holds ${o.key}, which no file asked for (a second copy?)`);
    for (const f of localFiles) {
      const local = await readFile(f.file);
      if (byKey.get(f.key) === etagOfBuffer(local)) rec.verified(local.length);
      else {
        rec.report.lost++;
        rec.fail(
          `${f.key} lost or stale after the SIGKILLs of blocklift serve: ${byKey.has(f.key) ? 'hash differs' : 'missing'} (reproduce: --only app-crash --seed ${ctx.seed})`,
        );
      }
    }
  } finally {
    db.close();
    emu.close();
  }
}
