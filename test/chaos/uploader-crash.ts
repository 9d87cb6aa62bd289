import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startTestEmulator } from '../helpers/emulator';
import { prng, spawnBlocklift, type ChaosContext } from './context';
import { downloader } from './rig';

/**
 * Section: `blocklift upload` (a child) SIGKILLed at seeded random moments, then the same
 * command run again until it exits 0. Every file ends in the store exactly once, verified,
 * and downloads identical; the CLI's database holds one done transfer per key.
 */
export async function uploaderCrashes(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const dir = path.join(ctx.root, 'uploader-crash');
  const src = path.join(dir, 'files');
  await mkdir(src, { recursive: true });
  const emu = await startTestEmulator({
    dataDir: path.join(dir, 'emulator'),
    accessKey: ctx.accessKey,
    secretKey: ctx.secretKey,
    faults: { bandwidthBytesPerSec: 4_000_000 },
  });
  const { files, fileBytes } = ctx.params.outage;
  const kills = ctx.params.form === 'long' ? 10 : 3;
  const rnd = prng(ctx.seed + 7);
  try {
    for (let i = 0; i < files; i++) await writeFile(path.join(src, `c${i}.bin`), randomBytes(fileBytes + 3 * i));
    const db = path.join(dir, 'cli.db');
    const args = [
      'upload',
      src,
      '--bucket',
      emu.bucket,
      '--upload-url',
      emu.uploadUrl,
      // A killed run's mkfile may have landed before its record: the resumed one meets 406
      // and asks the service (stat, through the management URL) whether the object is this file.
      '--mgr-url',
      emu.mgrUrl,
      '--db',
      db,
      '--json',
      '--prefix',
      'crash/',
    ];
    const env = { ...process.env, BLOCKLIFT_AK: ctx.accessKey, BLOCKLIFT_SK: ctx.secretKey };
    let killed = 0;
    for (let run = 0; run < kills + 5; run++) {
      const p = spawnBlocklift(ctx, args, { env, cwd: dir });
      if (killed < kills) {
        // Kill once it has started uploading: after its first progress has reached the emulator.
        const before = emu.blockCount();
        const t0 = Date.now();
        const wait = 300 + rnd() * 1500;
        let exited = false;
        void p.exited.then(() => (exited = true));
        while (!exited && (emu.blockCount() === before || Date.now() - t0 < wait) && Date.now() - t0 < 60_000)
          await new Promise((r) => setTimeout(r, 50));
        if (!exited) {
          p.child.kill('SIGKILL');
          await p.exited;
          killed++;
          rec.fault('uploader SIGKILL');
          continue;
        }
      }
      const code = await p.exited;
      if (code === 0) break;
      ctx.errorsSeen.push(p.stderr());
      if (run === kills + 4)
        rec.fail(`blocklift upload still exits ${code} after ${run + 1} runs: ${p.stderr().slice(0, 500)}`);
    }
    rec.report.crashesSurvived += killed;
    const sql = new Database(db, { readonly: true });
    const dupes = sql
      .prepare(`SELECT key, COUNT(*) AS n FROM transfers WHERE state = 'done' GROUP BY key HAVING n > 1`)
      .all() as Array<{ key: string; n: number }>;
    sql.close();
    for (const d of dupes) rec.fail(`${d.key} was uploaded ${d.n} times across the killed runs`);
    const download = downloader(emu.mgrUrl, (key) => emu.objectUrl(emu.bucket, key));
    for (const name of await readdir(src)) {
      const local = await readFile(path.join(src, name));
      const remote = await download(`crash/${name}`).catch((e: Error) => e);
      if (remote instanceof Buffer && remote.equals(local)) rec.verified(local.length);
      else {
        rec.report.lost++;
        rec.fail(
          `crash/${name} lost after ${killed} SIGKILLs of blocklift upload: ${remote instanceof Error ? remote.message : 'bytes differ'} (reproduce: npm run test:chaos -- --only crash --seed ${ctx.seed})`,
        );
      }
    }
    rec.note(`${files} files through ${killed} SIGKILLs of blocklift upload at seeded moments`);
  } finally {
    await emu.close();
  }
}
