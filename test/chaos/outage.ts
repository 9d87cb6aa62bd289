import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { backoffDelayMs } from '../../src-main/engine/retry';
import type { TransferRequest } from '../../src-main/shared/models';
import { freePort, waitFor, type ChaosContext } from './context';
import { startEmulatorChild, type EmulatorChild } from './emulator-child';
import { countRetries, downloader, openEngineRig, settleAll, verifyDone, type EngineRig } from './rig';

const BUCKET = 'local';

/** Writes the section's files and returns their transfer requests. */
async function makeFiles(ctx: ChaosContext, dir: string, accountId: number, tag: string): Promise<TransferRequest[]> {
  const { files, fileBytes } = ctx.params.outage;
  await mkdir(dir, { recursive: true });
  const out: TransferRequest[] = [];
  for (let i = 0; i < files; i++) {
    const localPath = path.join(dir, `${tag}-${i}.bin`);
    await writeFile(localPath, randomBytes(fileBytes + i));
    out.push({ accountId, bucket: BUCKET, key: `outage/${tag}-${i}`, localPath, source: 'manual' });
  }
  return out;
}

/** Resolves once the transfers together acknowledged at least `fraction` of their bytes. */
function progressReached(rig: EngineRig, ids: number[], total: number, fraction: number): Promise<boolean> {
  return waitFor(() => {
    const done = ids.reduce((a, id) => a + (rig.engine.get(id)?.bytesDone ?? 0), 0);
    return done >= total * fraction;
  }, 120_000);
}

async function verifyAll(ctx: ChaosContext, rig: EngineRig, emu: EmulatorChild, ids: number[], what: string) {
  const download = downloader(emu.info.mgrUrl, (key) => emu.objectUrl(BUCKET, key));
  for (const id of ids) {
    const s = rig.engine.get(id)!;
    if (s.lastError) ctx.errorsSeen.push(s.lastError.message);
    const v = await verifyDone(rig, s, download).catch((e: Error) => ({ ok: false, bytes: 0, why: e.message }));
    if (v.ok) ctx.rec.verified(v.bytes);
    else {
      ctx.rec.report.lost++;
      ctx.rec.fail(`${what}: lost: ${v.why} (reproduce: npm run test:chaos -- --only outage --seed ${ctx.seed})`);
    }
  }
}

/**
 * The emulator (a child process) SIGKILLed twice mid-upload and started again on the same
 * data and port within the engine's retry budget: every transfer waits, retries and ends
 * verified.
 */
async function shortOutages(ctx: ChaosContext, dir: string, port: number): Promise<void> {
  const data = path.join(dir, 'emulator');
  const slow = ['--faults', JSON.stringify({ bandwidthBytesPerSec: 3_000_000 })];
  let emu = await startEmulatorChild(ctx, data, port, slow);
  const backoff = { baseDelayMs: 1000, maxDelayMs: 8000 };
  const rig = openEngineRig(ctx, { dir, uploadUrl: emu.info.uploadUrl, engine: { backoff } });
  // The shortest the engine waits before giving up: the least backoff after failures 1-7.
  let budgetMs = 0;
  for (let a = 1; a < 8; a++) budgetMs += backoffDelayMs(a, 0, backoff);
  try {
    const reqs = await makeFiles(ctx, path.join(dir, 'files'), rig.accountId, 'short');
    const total = reqs.length * ctx.params.outage.fileBytes;
    const ids = rig.engine.enqueue(reqs);
    let longest = 0;
    for (const fraction of [0.2, 0.6]) {
      if (!(await progressReached(rig, ids, total, fraction)))
        throw new Error(`the upload never reached ${fraction * 100} %`);
      const t = Date.now();
      await emu.kill();
      ctx.rec.fault('emulator SIGKILL');
      emu = await startEmulatorChild(ctx, data, port, slow);
      longest = Math.max(longest, Date.now() - t);
      ctx.rec.report.crashesSurvived++;
    }
    const bad = (await settleAll(rig.engine, ids, 300_000)).filter((s) => s.state !== 'done');
    const outage = `the longest outage lasted ${(longest / 1000).toFixed(1)} s, the retry budget is at least ${budgetMs / 1000} s`;
    if (bad.length && longest < budgetMs)
      ctx.rec.fail(
        `${outage}, yet ${bad.length} transfers ended ${bad.map((s) => `${s.state} ${JSON.stringify(s.lastError)}`).join('; ')}`,
      );
    else if (bad.length) {
      // A machine so busy that the emulator took longer to start than the budget: that is the long outage case.
      ctx.rec.note(`${outage}: ${bad.length} transfers gave up (${bad[0]?.lastError?.message}); resumed`);
      for (const s of bad) rig.engine.resume(s.id);
      await settleAll(rig.engine, ids, 300_000);
    }
    ctx.rec.note(outage);
    countRetries(ctx, rig.db);
    await verifyAll(ctx, rig, emu, ids, 'short outages');
    ctx.rec.note(`${ids.length} files uploaded through 2 SIGKILLs of the emulator child, restarted on port ${port}`);
  } finally {
    await rig.close();
    await emu.stop();
  }
}

/**
 * An outage longer than the retry budget: every transfer fails with a clear reason; the
 * next run (a new engine on the same database) resumes them once the emulator is back.
 */
async function longOutage(ctx: ChaosContext, dir: string, port: number): Promise<void> {
  const data = path.join(dir, 'emulator');
  const slow = ['--faults', JSON.stringify({ bandwidthBytesPerSec: 3_000_000 })];
  let emu = await startEmulatorChild(ctx, data, port, slow);
  const rig = openEngineRig(ctx, {
    dir,
    uploadUrl: emu.info.uploadUrl,
    engine: { backoff: { baseDelayMs: 20, maxDelayMs: 100 } },
  });
  try {
    const reqs = await makeFiles(ctx, path.join(dir, 'files'), rig.accountId, 'long');
    const total = reqs.length * ctx.params.outage.fileBytes;
    const ids = rig.engine.enqueue(reqs);
    if (!(await progressReached(rig, ids, total, 0.3))) throw new Error('the upload never reached 30 %');
    await emu.kill();
    ctx.rec.fault('emulator SIGKILL');
    // Those already done before the kill stay done; every other one must fail clearly.
    const doneBefore = new Set(ids.filter((id) => rig.engine.get(id)!.state === 'done'));
    const failed = (await settleAll(rig.engine, ids, 120_000)).filter((s) => !doneBefore.has(s.id));
    for (const s of failed) {
      if (s.state !== 'failed' || !s.lastError?.message)
        ctx.rec.fail(
          `long outage: transfer ${s.key} ended ${s.state} ${JSON.stringify(s.lastError)} instead of a clear failure`,
        );
      else ctx.errorsSeen.push(s.lastError.message);
    }
    const reasons = new Set(failed.map((s) => `${s.lastError?.code}: ${s.lastError?.message}`));
    ctx.rec.note(`long outage: ${failed.length} transfers failed: ${[...reasons].join(' | ')}`);
    const acked = failed.reduce((a, s) => a + s.bytesDone, 0);
    emu = await startEmulatorChild(ctx, data, port, slow);
    const engine = await rig.restartEngine();
    for (const id of ids) engine.resume(id);
    const snaps = await settleAll(engine, ids, 300_000);
    const bad = snaps.filter((s) => s.state !== 'done');
    if (bad.length)
      ctx.rec.fail(
        `long outage: the next run did not finish ${bad.length} transfers: ${bad.map((s) => JSON.stringify(s.lastError)).join('; ')}`,
      );
    else ctx.rec.report.crashesSurvived++;
    ctx.rec.note(`long outage: the next run resumed with ${acked} of ${total} bytes already acknowledged`);
    countRetries(ctx, rig.db);
    await verifyAll(ctx, rig, emu, ids, 'long outage');
  } finally {
    await rig.close();
    await emu.stop();
  }
}

/** Section 2: the emulator killed and restarted mid-upload. */
export async function emulatorOutage(ctx: ChaosContext): Promise<void> {
  const port = await freePort();
  await shortOutages(ctx, path.join(ctx.root, 'outage', 'short'), port);
  await longOutage(ctx, path.join(ctx.root, 'outage', 'long'), await freePort());
}
