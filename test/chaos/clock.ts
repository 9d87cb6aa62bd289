import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TransferRequest } from '../../src-main/shared/models';
import { startTestEmulator } from '../helpers/emulator';
import { waitFor, type ChaosContext } from './context';
import { countRetries, downloader, openEngineRig, settleAll, verifyDone } from './rig';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/**
 * Section: the client's and the service's clocks jump, forward and back, mid-upload (token
 * deadlines, the 25-day block age, progress and ETA). Claim: every transfer ends verified or
 * fails with a clear reason, and once the clocks agree again, resuming the failed ones
 * finishes them all, each downloaded identical.
 */
export async function clockJumps(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const dir = path.join(ctx.root, 'clock');
  await mkdir(path.join(dir, 'files'), { recursive: true });
  const emu = await startTestEmulator({
    dataDir: path.join(dir, 'emulator'),
    accessKey: ctx.accessKey,
    secretKey: ctx.secretKey,
    faults: { bandwidthBytesPerSec: 1_500_000 },
  });
  let clientOffset = 0;
  const rig = openEngineRig(ctx, {
    dir,
    uploadUrl: emu.uploadUrl,
    now: () => Date.now() + clientOffset,
    engine: { limits: { maxFiles: 2 }, chunkBytes: 1024 * 1024, backoff: { baseDelayMs: 50, maxDelayMs: 400 } },
  });
  const jumps: Array<[number, string, () => void]> = [
    [
      0,
      'client back 2 h before any upload (its tokens are expired for the service)',
      () => (clientOffset -= 120 * MIN),
    ],
    [0.25, 'client +40 days (blocks look older than the purge age)', () => (clientOffset += 40 * DAY)],
    [0.4, 'service +4 min', () => emu.clock.advance(4 * MIN)],
    [0.55, 'client back to the real time', () => (clientOffset = 0)],
    [0.7, 'service back 1 day', () => emu.clock.advance(-DAY)],
  ];
  try {
    // Twice the engine's files at once: the later ones start (and get tokens) after the jumps.
    const files = 2 * ctx.params.outage.files;
    const fileBytes = ctx.params.outage.fileBytes;
    const reqs: TransferRequest[] = [];
    for (let i = 0; i < files; i++) {
      const localPath = path.join(dir, 'files', `t${i}.bin`);
      await writeFile(localPath, randomBytes(fileBytes + 5 * i));
      reqs.push({ accountId: rig.accountId, bucket: emu.bucket, key: `clock/t${i}`, localPath, source: 'manual' });
    }
    const total = files * fileBytes;
    const ids = rig.engine.enqueue(reqs);
    const acked = () => ids.reduce((a, id) => a + (rig.engine.get(id)?.bytesDone ?? 0), 0);
    const settled = () => ids.every((id) => ['done', 'failed'].includes(rig.engine.get(id)!.state));
    const resumeFailed = (when: string) => {
      const failed = ids.map((id) => rig.engine.get(id)!).filter((s) => s.state === 'failed');
      for (const s of failed) {
        if (!s.lastError?.code || !s.lastError.message) rec.fail(`clock: ${s.key} failed without a reason`);
        else ctx.errorsSeen.push(s.lastError.message);
      }
      const reasons = new Set(
        failed.map(
          (s) =>
            `${s.lastError?.code}: ${s.lastError?.message.replace(/\(request id \w+\)|\d{4}-\d\d-\d\dT[\d:.]+Z/g, '…')}`,
        ),
      );
      if (failed.length)
        rec.note(`clock: ${failed.length} failed ${when}: ${[...reasons].join(' | ')}; clocks set right, resumed`);
      clientOffset = 0;
      emu.clock.advance(-emu.clock.offset);
      for (const s of failed) rig.engine.resume(s.id);
      return failed.length;
    };
    for (const [fraction, what, jump] of jumps) {
      await waitFor(() => acked() >= total * fraction || settled(), 120_000);
      if (settled() && resumeFailed(`before "${what}"`) === 0) {
        rec.note(`clock: all transfers ended before "${what}"`);
        break;
      }
      jump();
      rec.fault(`clock jump`);
      rec.note(`clock: at ${Math.round((acked() / total) * 100)} %: ${what}`);
      if (fraction === 0) await waitFor(settled, 120_000);
    }
    await waitFor(settled, 300_000);
    resumeFailed('at the end');
    const snaps = await settleAll(rig.engine, ids, 300_000);
    countRetries(ctx, rig.db);
    const download = downloader(emu.mgrUrl, (key) => emu.objectUrl(emu.bucket, key));
    for (const s of snaps) {
      const v = await verifyDone(rig, s, download).catch((e: Error) => ({ ok: false, bytes: 0, why: e.message }));
      if (v.ok) rec.verified(v.bytes);
      else {
        rec.report.lost++;
        rec.fail(`clock: lost: ${v.why} (reproduce: npm run test:chaos -- --only clock --seed ${ctx.seed})`);
      }
    }
  } finally {
    await rig.close();
    await emu.close();
  }
}
