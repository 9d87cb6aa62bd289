import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { isServiceError } from '../../../src-main/protocol/errors';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import { MiB, etagOfBuffer, sha1, startRig, type Rig } from './harness';

/** The real client, counting 401 answers and the chunk bytes the service acknowledged. */
class CountingClient extends UploadClient {
  refused = { mkblk: 0, bput: 0 };
  acknowledgedBytes = 0;
  override async mkblk(a: Parameters<UploadClient['mkblk']>[0]) {
    try {
      const r = await super.mkblk(a);
      this.acknowledgedBytes += a.chunk.length;
      return r;
    } catch (e) {
      if (isServiceError(e) && e.status === 401) this.refused.mkblk++;
      throw e;
    }
  }
  override async bput(a: Parameters<UploadClient['bput']>[0]) {
    try {
      const r = await super.bput(a);
      this.acknowledgedBytes += a.chunk.length;
      return r;
    } catch (e) {
      if (isServiceError(e) && e.status === 401) this.refused.bput++;
      throw e;
    }
  }
}

let rig: Rig | undefined;
let client: CountingClient | undefined;
afterEach(async () => {
  await rig?.close();
  client?.close();
  rig = undefined;
  client = undefined;
});

describe('engine: the service clock ahead of the client clock', () => {
  it('tokens the client still thinks valid get 401 (4 blocks in flight); a fresh token resends the same chunk, same ctx, no progress lost, done with the right hash', async () => {
    // Tokens live 3 s by the client's clock; the emulator's clock runs 2 s ahead, so it
    // refuses a token 1 s after signing while the client (margin 0.5 s) keeps using it to 2.5 s.
    const TTL_MS = 3000;
    rig = await startRig({
      tokens: (emu) =>
        new LocalTokenSigner(emu.config.accessKey, emu.config.secretKey, { now: Date.now, ttlMs: TTL_MS }),
      engine: {
        now: Date.now,
        tokenMarginMs: 500,
        chunkBytes: 256 * 1024,
        bandwidthBytesPerSec: 4 * MiB,
        limits: { maxBlocksPerFile: 4 },
      },
    });
    rig.emu.clock.advance(2000);
    client = new CountingClient({ uploadUrl: rig.emu.uploadUrl, timeoutMs: 10_000 });
    const signer = new LocalTokenSigner(rig.emu.config.accessKey, rig.emu.config.secretKey, {
      now: Date.now,
      ttlMs: TTL_MS,
    });
    await rig.engine.close();
    rig.newEngine({ account: () => ({ client: client!, tokens: signer }) });
    const size = 16 * MiB + 12345; // 5 blocks, 4 in flight
    const data = await rig.file('skew.bin', size);
    const [id] = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: rig.emu.bucket,
        key: 'skew.bin',
        localPath: path.join(rig.dir, 'skew.bin'),
        source: 'manual',
      },
    ]);
    const s = await rig.settled(id!, 120_000);
    expect(s.lastError, JSON.stringify(s)).toBeNull();
    expect(s.state).toBe('done');
    expect(rig.store.getTransfer(id!)!.remoteHash).toBe(etagOfBuffer(data));
    expect(sha1(await rig.download('skew.bin'))).toBe(sha1(data));
    // 401s really happened, on bput too, and no block restarted: every byte acknowledged once.
    expect(client.refused.bput).toBeGreaterThan(0);
    expect(client.refused.mkblk + client.refused.bput).toBeGreaterThan(1);
    expect(client.acknowledgedBytes).toBe(size);
  });
});
