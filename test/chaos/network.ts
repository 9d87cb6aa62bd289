import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FaultConfig, FaultEvent } from '../../src-main/emulator/faults';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { prng, type ChaosContext } from './context';
import { countRetries, downloader, openEngineRig, settleAll, verifyDone } from './rig';

const MiB = 1024 * 1024;

/**
 * File sizes of the network section: 0 B, 1 B, every exact multiple of 4 MiB up to 16 MiB
 * and a few beyond (each also ± 1 byte), the maximum, and the rest log-uniform in between
 * (so small files dominate, as in real trees). Deterministic for a seed.
 */
export function fileSizes(count: number, maxBytes: number, seed: number): number[] {
  const special = new Set<number>([0, 1, maxBytes]);
  for (const k of [1, 2, 3, 4, 8, 16]) {
    for (const d of [-1, 0, 1]) {
      const n = k * 4 * MiB + d;
      if (n <= maxBytes) special.add(n);
    }
  }
  if (maxBytes - 1 > 0) special.add(maxBytes - 1);
  const sizes = [...special].slice(0, count);
  const rnd = prng(seed);
  while (sizes.length < count) sizes.push(Math.floor(Math.exp(rnd() * Math.log(maxBytes))));
  return sizes;
}

/** The fault mix of the issue: 10 % 5xx, 5 % resets mid-body, ctx expiry, latency, a bandwidth cap. */
export function networkFaults(seed: number, bandwidthBytesPerSec: number): FaultConfig {
  return {
    seed,
    errors: [
      { endpoints: ['mkblk', 'bput', 'mkfile'], rate: 0.07, status: 503 },
      { endpoints: ['mkblk', 'bput', 'mkfile'], rate: 0.02, status: 500 },
      { endpoints: ['bput'], rate: 0.01, status: 502 },
    ],
    reset: { rate: 0.05, endpoints: ['mkblk', 'bput'] },
    ctxExpiry: { rate: 0.01, afterUses: 40 },
    latencyMs: 2,
    latencyJitterMs: 20,
    latencyEndpoints: ['mkblk', 'bput', 'mkfile'],
    bandwidthBytesPerSec,
  };
}

/**
 * Collects the emulator's fault events (it keeps the last 1000) by polling often, each
 * counted once; `stop()` returns the counts by kind.
 */
export function faultTap(emu: Pick<TestEmulator, 'faultEvents'>): { stop(): Map<string, number> } {
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  const take = () => {
    for (const e of emu.faultEvents() as FaultEvent[]) {
      const id = `${e.kind}/${e.endpoint}/${e.n}/${e.status ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const kind = e.kind === 'error' ? `error ${e.status}` : e.kind;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  };
  const timer = setInterval(take, 100);
  return {
    stop() {
      clearInterval(timer);
      take();
      return counts;
    },
  };
}

/** Section 1: many files through seeded network faults, each downloaded and compared. */
export async function networkChaos(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const p = ctx.params.network;
  const dir = path.join(ctx.root, 'network');
  const files = path.join(dir, 'files');
  await mkdir(files, { recursive: true });
  const emu = await startTestEmulator({
    dataDir: path.join(dir, 'emulator'),
    accessKey: ctx.accessKey,
    secretKey: ctx.secretKey,
    faults: networkFaults(ctx.seed, p.bandwidthBytesPerSec),
  });
  const tap = faultTap(emu);
  const rig = openEngineRig(ctx, {
    dir,
    uploadUrl: emu.uploadUrl,
    now: () => emu.clock.now(),
    engine: { chunkBytes: MiB / 2 },
  });
  try {
    const sizes = fileSizes(p.files, p.maxBytes, ctx.seed);
    const requests = [];
    for (const [i, size] of sizes.entries()) {
      const localPath = path.join(files, `f${i}-${size}.bin`);
      await writeFile(localPath, randomBytes(size));
      requests.push({
        accountId: rig.accountId,
        bucket: emu.bucket,
        key: `net/${i}-${size}`,
        localPath,
        source: 'manual' as const,
      });
    }
    const total = sizes.reduce((a, b) => a + b, 0);
    rec.note(
      `${sizes.length} files, ${(total / MiB).toFixed(1)} MiB, sizes ${Math.min(...sizes)}–${Math.max(...sizes)} B, seed ${ctx.seed}`,
    );
    const ids = rig.engine.enqueue(requests);
    const budgetMs = ctx.params.form === 'short' ? 240_000 : 3_600_000;
    let snaps = await settleAll(rig.engine, ids, budgetMs);
    // A transfer that gave up (retries exhausted) is what a user would resume; say so.
    for (let round = 0; round < 3 && snaps.some((s) => s.state === 'failed'); round++) {
      const failed = snaps.filter((s) => s.state === 'failed');
      rec.note(
        `round ${round + 1}: ${failed.length} failed and resumed: ${failed.map((s) => s.lastError?.message).join('; ')}`,
      );
      for (const s of failed) rig.engine.resume(s.id);
      snaps = await settleAll(rig.engine, ids, budgetMs);
    }
    for (const [kind, n] of tap.stop()) rec.fault(kind, n);
    rec.note(`bandwidth cap ${p.bandwidthBytesPerSec} B/s per request body`);
    countRetries(ctx, rig.db);
    emu.setFaults({});
    const download = downloader(emu.mgrUrl, (key) => emu.objectUrl(emu.bucket, key));
    for (const s of snaps) {
      const v = await verifyDone(rig, s, download).catch((e: Error) => ({ ok: false, bytes: 0, why: e.message }));
      if (v.ok) rec.verified(v.bytes);
      else {
        ctx.rec.report.lost++;
        rec.fail(
          `lost: ${v.why} (reproduce: npm run test:chaos -- --only network --seed ${ctx.seed}${ctx.params.form === 'long' ? ' --long' : ''})`,
        );
      }
    }
  } finally {
    tap.stop();
    await rig.close();
    await emu.close();
  }
}
