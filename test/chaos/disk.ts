import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { DEFAULT_BUCKET } from '../../src-main/emulator/server';
import { etagOfBuffer } from '../../src-main/protocol/etag';
import type { ProblemView } from '../../src-main/shared/contract';
import { DOOR_STAGE_PATH } from '../../src-main/shared/wire';
import { waitFor, type ChaosContext } from './context';
import { SectionSkipped, type MachineCheck } from './report';
import { countRetries } from './rig';
import { must, startServe, stopServe, type ServeChild } from './serve-rig';
import { connectUi, type UiStream } from './ws-events';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/**
 * Section: the disk fills up. `blocklift serve` runs with its data folder (database, staging,
 * logs) on a small tmpfs (the embedded emulator's data bind-mounted from the real disk, so
 * only the app's side is full) and a watched folder on a second small tmpfs. Mid-upload the
 * data disk is filled to the last byte, and a file written into the watched folder stops
 * part-way on its full disk. Claims: no transfer fails (each is held and retried as
 * disk-full), the UI gets a disk-full problem naming the database, a browser file staged
 * meanwhile is refused with 507 disk-full, and once space returns everything finishes:
 * every file's latest bytes are in the store, nothing done without its hash,
 * `PRAGMA integrity_check` passes. Without the right to mount a tmpfs the section is
 * skipped (`SectionSkipped`), and the report says why; `canMountTmpfs` is its probe of the
 * machine, so that in CI a skip where a tmpfs can be mounted is a failure.
 */
export async function diskFull(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const dir = path.join(ctx.root, 'disk');
  const data = path.join(dir, 'data');
  const emuReal = path.join(dir, 'emulator-data');
  const watched = path.join(dir, 'watched');
  const manual = path.join(dir, 'manual');
  for (const d of [data, emuReal, watched, manual]) await mkdir(d, { recursive: true });
  const mounts: string[] = [];
  try {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', data]);
      mounts.push(data);
    } catch (e) {
      throw new SectionSkipped(
        `a tmpfs could not be mounted (${firstLine(e)}): the section needs root or CAP_SYS_ADMIN`,
      );
    }
    await mkdir(path.join(data, 'emulator'));
    await run('mount', ['--bind', emuReal, path.join(data, 'emulator')]);
    mounts.unshift(path.join(data, 'emulator'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', watched]);
    mounts.unshift(watched);
    await fullDiskRun(ctx, { data, watched, manual });
  } finally {
    for (const m of mounts) await run('umount', [m]).catch((e) => rec.fail(`umount ${m}: ${firstLine(e)}`));
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether this machine can run the section: a 1 MiB tmpfs mounted (and unmounted) in a fresh folder. */
export async function canMountTmpfs(): Promise<MachineCheck> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bl-tmpfs-probe-'));
  const who = `uid ${process.getuid?.() ?? '?'}`;
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
  } catch (e) {
    await rmdir(dir);
    return { can: false, detail: `${who} could not mount a tmpfs: ${firstLine(e)}` };
  }
  await run('umount', [dir]);
  await rmdir(dir);
  return { can: true, detail: `${who} mounted a 1 MiB tmpfs (and unmounted it)` };
}

async function fullDiskRun(ctx: ChaosContext, d: { data: string; watched: string; manual: string }): Promise<void> {
  const { rec } = ctx;
  const long = ctx.params.form === 'long';
  const manualFiles: string[] = [];
  for (let i = 0; i < (long ? 8 : 3); i++) {
    const f = path.join(d.manual, `m${i}.bin`);
    await writeFile(f, randomBytes(6 * MiB + i));
    manualFiles.push(f);
  }
  const s = await startServe(ctx, d.data, { cwd: path.dirname(d.data) });
  let ui: UiStream | undefined;
  const dbFile = path.join(d.data, 'blocklift.db');
  const filler = path.join(d.data, 'filler');
  try {
    ui = await connectUi(s);
    // Slow enough that the transfers are still running when the disk fills.
    await must(s, 'settings.set', { bandwidthLimit: 3 * MiB });
    await must(s, 'roots.add', { path: d.watched, bucket: DEFAULT_BUCKET, prefix: 'w/' });
    await must(s, 'transfers.add', { paths: manualFiles, target: { bucket: DEFAULT_BUCKET, prefix: 'm/' } });
    const filled = await fill(filler);
    rec.fault('disk full (database)');
    // A file written into the watched folder while its own disk is full stops part-way.
    const cut = await fill(path.join(d.watched, 'cut.bin'));
    rec.fault('disk full (watched folder)');
    await writeFile(path.join(d.watched, 'small.txt'), 'written before the disk filled up\n').catch(() => undefined);
    const held = await waitFor(() => problems(ui!).some((p) => p.code === 'disk-full'), 90_000, 200);
    const dbProblem = problems(ui).find((p) => p.code === 'disk-full' && p.params['path'] === dbFile);
    if (!held) rec.fail('no disk-full problem reached the UI while the database disk was full');
    else if (!dbProblem)
      rec.fail(`no disk-full problem named the database ${dbFile}: ${JSON.stringify(problems(ui)).slice(0, 300)}`);
    await stagingRefused(ctx, s, d.data);
    // Held, not failed: a few retry rounds (every ~2 s) later still nothing failed.
    await new Promise((r) => setTimeout(r, 5000));
    const failedWhileFull = await failedTransfers(s);
    if (failedWhileFull.length) rec.fail(`transfers failed on a full disk instead of waiting: ${failedWhileFull}`);
    const full = problems(ui).filter((p) => p.code === 'disk-full');
    // A watched folder's files or scan held by the full database say so with codes of their own.
    const ofRoots = problems(ui).filter((p) => p.code === 'queue-disk-full' || p.code === 'scan-disk-full').length;
    // Held transfers retry every ~2 s, but the full database cannot log it: the problems count.
    rec.retry('disk-full → hold (problem shown)', full.length);
    rec.note(
      `data disk filled with ${(filled / MiB).toFixed(1)} MiB; a watched file stopped at ${cut} bytes; ` +
        `${full.length} disk-full problems reached the UI (and ${ofRoots} of watched folders waiting on it)`,
    );
    // Space returns: the filler goes, the watched disk grows, the cut file is written whole.
    await rm(filler);
    await run('mount', ['-o', 'remount,size=64m', 'tmpfs', d.watched]);
    await writeFile(path.join(d.watched, 'cut.bin'), randomBytes(6 * MiB + 5));
    await settle(ctx, s, d, manualFiles);
  } finally {
    await ui?.close();
    const code = await stopServe(s);
    if (code !== 0) rec.fail(`blocklift serve exited ${code} on SIGTERM: ${s.proc.stderr().slice(0, 500)}`);
  }
  await checkAfter(ctx, dbFile, d, manualFiles);
}

function problems(ui: UiStream): ProblemView[] {
  return ui.events
    .filter((e) => e.name === 'problems')
    .flatMap((e) => (e.payload as { problems: ProblemView[] }).problems);
}

/** Writes zeros to `file` until its disk refuses (ENOSPC); returns the bytes written. */
async function fill(file: string): Promise<number> {
  const fh = await open(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let n = 0;
  try {
    for (;;) {
      const { bytesWritten } = await fh.write(chunk);
      n += bytesWritten;
      if (bytesWritten < chunk.length) break;
    }
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOSPC') throw e;
  } finally {
    await fh.close().catch(() => undefined);
  }
  return n;
}

/** A browser's file staged while the disk is full: 507 with code disk-full, and no partial file left. */
async function stagingRefused(ctx: ChaosContext, s: ServeChild, data: string): Promise<void> {
  const auth = { authorization: `Bearer ${s.token}` };
  const b = await fetch(`${s.base}${DOOR_STAGE_PATH}`, { method: 'POST', headers: auth });
  const batch = ((await b.json()) as { value?: { batch?: string } }).value?.batch;
  if (!batch) return ctx.rec.fail(`POST ${DOOR_STAGE_PATH} gave no batch (${b.status})`);
  const put = await fetch(`${s.base}${DOOR_STAGE_PATH}/${batch}/dropped.bin`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: randomBytes(2 * MiB),
  });
  const body = (await put.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  if (put.status !== 507 || body?.error?.code !== 'disk-full')
    ctx.rec.fail(
      `a staged file on a full disk answered ${put.status} ${JSON.stringify(body)} instead of 507 disk-full`,
    );
  const left = await readdir(path.join(data, 'staging', batch)).catch(() => []);
  if (left.length) ctx.rec.fail(`a refused staged file left ${left.join(', ')} behind`);
  ctx.rec.report.inputsTried++;
}

async function failedTransfers(s: ServeChild): Promise<string[]> {
  const page = await must<{ rows: Array<{ key: string; state: string; lastError?: { code: string } | null }> }>(
    s,
    'transfers.list',
    { states: ['failed'], limit: 1000 },
  );
  return page.rows.map((r) => `${r.key} (${r.lastError?.code ?? '?'})`);
}

/** Waits until nothing is left to run and every file's latest bytes are in the emulator. */
async function settle(
  ctx: ChaosContext,
  s: ServeChild,
  d: { data: string; watched: string },
  manualFiles: string[],
): Promise<void> {
  const expected = await expectedEtags(d.watched, manualFiles);
  const emu = path.join(d.data, 'emulator', 'emulator.db');
  const ok = await waitFor(
    async () => {
      const page = await must<{ counts?: Record<string, number>; rows: Array<{ state: string }> }>(
        s,
        'transfers.list',
        { states: ['queued', 'hashing', 'uploading', 'completing'], limit: 1 },
      );
      if (page.rows.length) return false;
      const db = new Database(emu, { readonly: true, fileMustExist: true });
      try {
        const hashOf = db.prepare(`SELECT hash FROM objects WHERE bucket = ? AND key = ?`);
        return [...expected].every(
          ([key, etag]) => (hashOf.get(DEFAULT_BUCKET, key) as { hash?: string })?.hash === etag,
        );
      } finally {
        db.close();
      }
    },
    ctx.params.form === 'long' ? 600_000 : 180_000,
    500,
  );
  if (!ok) ctx.rec.fail(`after space returned the queue did not finish (reproduce: --only disk --seed ${ctx.seed})`);
}

async function expectedEtags(watched: string, manualFiles: string[]): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  for (const n of await readdir(watched)) m.set(`w/${n}`, etagOfBuffer(await readFile(path.join(watched, n))));
  for (const f of manualFiles) m.set(`m/${path.basename(f)}`, etagOfBuffer(await readFile(f)));
  return m;
}

async function checkAfter(
  ctx: ChaosContext,
  dbFile: string,
  d: { data: string; watched: string },
  manualFiles: string[],
): Promise<void> {
  const { rec } = ctx;
  const expected = await expectedEtags(d.watched, manualFiles);
  const db = new Database(dbFile, { readonly: true });
  const emu = new Database(path.join(d.data, 'emulator', 'emulator.db'), { readonly: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') rec.fail(`PRAGMA integrity_check after the full disk: ${String(integrity)}`);
    const rows = db.prepare(`SELECT id, key, state, remote_hash, etag FROM transfers`).all() as Array<{
      id: number;
      key: string;
      state: string;
      remote_hash: string | null;
      etag: string | null;
    }>;
    for (const r of rows) {
      if (r.state === 'failed') rec.fail(`transfer ${r.id} (${r.key}) failed because of the full disk`);
      if (r.state === 'done' && (!r.remote_hash || r.remote_hash !== r.etag))
        rec.fail(`transfer ${r.id} (${r.key}) is done without a verified hash`);
    }
    const retries = countRetries(ctx, db);
    const held = (
      db.prepare(`SELECT COUNT(*) AS n FROM event_log WHERE kind = 'retry' AND message LIKE 'disk-full:%'`).get() as {
        n: number;
      }
    ).n;
    rec.note(`${retries} retries logged, ${held} of them disk-full holds (those while full could not be logged)`);
    const hashOf = emu.prepare(`SELECT hash FROM objects WHERE bucket = ? AND key = ?`);
    for (const [key, etag] of expected) {
      if ((hashOf.get(DEFAULT_BUCKET, key) as { hash?: string } | undefined)?.hash === etag) {
        const file = key.startsWith('w/')
          ? path.join(d.watched, key.slice(2))
          : manualFiles.find((f) => f.endsWith(key.slice(2)))!;
        rec.verified((await readFile(file)).length);
      } else {
        rec.report.lost++;
        rec.fail(`${key} lost or stale after the disk filled up (reproduce: --only disk --seed ${ctx.seed})`);
      }
    }
  } finally {
    db.close();
    emu.close();
  }
}

function firstLine(e: unknown): string {
  const x = e as { stderr?: string; message?: string };
  return String(x.stderr || x.message || e)
    .split('\n')[0]!
    .trim();
}
