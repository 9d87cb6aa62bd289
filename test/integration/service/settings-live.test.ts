import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransferTotals } from '../../../src-main/shared/contract';
import { startForwardProxy, type ForwardProxy } from '../../helpers/forward-proxy';
import { ContractWorld, value } from './contract-world';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Transfers sending blocks now, by the totals of a batch: what concurrency.files bounds. A
 * file completing (its mkfile out, no block to send) gives its slot to the next file (engine
 * README, "In flight: a budget"), so counting completing files too could pass the limit by
 * design: three files whose blocks end together wait for their mkfiles while a fourth starts.
 */
const inFlight = (t: TransferTotals) => t.uploading;

/** Settings reach the running engine at once, through the contract only (no restart). */
describe('settings.set applies engine settings live', () => {
  let w: ContractWorld | undefined;
  let proxy: ForwardProxy | undefined;
  afterEach(async () => {
    await w?.close();
    await proxy?.close();
    w = undefined;
    proxy = undefined;
  });

  /** The in-flight count of every transfers batch from index `from` on. */
  const inFlightSince = (from: number) =>
    w!.events.slice(from).flatMap((e) => (e.name === 'transfers' ? [inFlight(e.payload.totals)] : []));

  it('concurrency changed mid-run: the number of files in flight follows it up and down', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    // Slow enough that every file is still uploading while the limit changes (the bandwidth is lifted at the end).
    value(await svc.settings.set({ concurrency: { files: 1, blocksPerFile: 2 }, bandwidthLimit: 256 * KiB }));
    const files: string[] = [];
    for (let i = 0; i < 6; i++) {
      const f = path.join(w.tmp, `big-${i}.bin`);
      // Above the 4 MiB form-upload threshold: uploaded in blocks, counted by concurrency.files.
      await writeFile(f, Buffer.alloc(5 * MiB, i + 1));
      files.push(f);
    }
    const ids = value(await svc.transfers.add({ paths: files, target: { bucket: 'local', prefix: 'live/' } })).queued;
    expect(ids).toHaveLength(6);
    const totals = async () => value(await svc.transfers.list({})).totals;
    await w.until(() => w!.lastTotals() !== undefined && inFlight(w!.lastTotals()!) === 1, 'one file in flight');
    expect(w.lastTotals()!.queued).toBe(5);

    value(await svc.settings.set({ concurrency: { files: 3, blocksPerFile: 2 } }));
    await w.until(() => inFlight(w!.lastTotals()!) === 3, 'three files in flight after raising the limit');
    expect(inFlight(await totals())).toBe(3);

    const lowered = w.events.length;
    value(await svc.settings.set({ concurrency: { files: 1, blocksPerFile: 2 } }));
    value(await svc.settings.set({ bandwidthLimit: null }));
    await w.until(() => ids.every((id) => w!.lastSeen(id)?.state === 'done'), 'every file done');
    // After lowering, the files in flight finish (none is cut) and no new one starts until one is left.
    const seen = inFlightSince(lowered);
    expect(Math.max(...seen)).toBeLessThanOrEqual(3);
    const firstLow = seen.findIndex((n) => n <= 1);
    expect(firstLow).toBeGreaterThanOrEqual(0);
    expect(Math.max(...seen.slice(firstLow))).toBeLessThanOrEqual(1);
    for (const id of ids) expect(w.lastSeen(id)?.lastError ?? null).toBeNull();
  });

  it('chunk size changed while a file uploads: that file keeps its chunks, the next file uses the new size', async () => {
    proxy = await startForwardProxy();
    w = await ContractWorld.create();
    const svc = await w.open();
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const secret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    // The same emulator through a counting proxy, which sees every request's body size.
    const viaProxy = value(
      await svc.accounts.save({
        name: 'Via proxy',
        uploadUrl: local.uploadUrl,
        accessKey: local.accessKey,
        secretKey: secret,
        proxy: { mode: 'url', url: proxy.url },
      }),
    );
    value(
      await svc.settings.set({
        concurrency: { files: 1, blocksPerFile: 1 },
        chunkSize: 256 * KiB,
        bandwidthLimit: 1 * MiB,
      }),
    );
    const first = path.join(w.tmp, 'first.bin');
    const second = path.join(w.tmp, 'second.bin');
    await writeFile(first, Buffer.alloc(6 * MiB, 1));
    await writeFile(second, Buffer.alloc(6 * MiB, 2));
    const target = { accountId: viaProxy.id, bucket: 'local' };
    const [a] = value(await svc.transfers.add({ paths: [first], target: { ...target, key: 'first.bin' } })).queued;
    await w.until(() => (w!.lastProgress(a!) ?? 0) > 0, 'the first file moving bytes');

    value(await svc.settings.set({ chunkSize: 1 * MiB }));
    const [b] = value(await svc.transfers.add({ paths: [second], target: { ...target, key: 'second.bin' } })).queued;
    value(await svc.settings.set({ bandwidthLimit: null }));
    await w.until(() => [a, b].every((id) => w!.lastSeen(id!)?.state === 'done'), 'both files done');

    // One file at a time: every chunk before the first mkfile is the first file's.
    const chunks = proxy.requests.filter((r) => /^\/(mkblk|bput)\//.test(r.path));
    const split = proxy.requests.findIndex((r) => r.path.startsWith('/mkfile/'));
    const firstEnd = proxy.requests.slice(0, split).filter((r) => /^\/(mkblk|bput)\//.test(r.path)).length;
    const ofFirst = chunks.slice(0, firstEnd).map((r) => r.bodyBytes);
    const ofSecond = chunks.slice(firstEnd).map((r) => r.bodyBytes);
    expect(ofFirst.length).toBeGreaterThan(0);
    expect(new Set(ofFirst)).toEqual(new Set([256 * KiB]));
    expect(new Set(ofSecond)).toEqual(new Set([1 * MiB]));
    expect(ofSecond).toHaveLength(6);
  });
});
