import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MiB, etagOfBuffer, sha1, startRig, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('engine: mkfile refuses the block list (401 for a stale ctx)', () => {
  it('after a fresh token still gets 401 at mkfile, the blocks are uploaded again (like 412) and the file is done and exact', async () => {
    rig = await startRig({
      engine: { chunkBytes: 1 * MiB, bandwidthBytesPerSec: 6 * MiB, limits: { maxBlocksPerFile: 1 } },
    });
    const size = 8 * MiB + 100; // blocks 4 MiB, 4 MiB, 100 bytes, one at a time
    const data = await rig.file('stale.bin', size);
    const [id] = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: rig.emu.bucket,
        key: 'stale.bin',
        localPath: path.join(rig.dir, 'stale.bin'),
        source: 'manual',
      },
    ]);
    // Keep a ctx of block 0 before its last; stop once block 0 is complete.
    let staleCtx: string | null = null;
    let resolveStop!: () => void;
    const stop = new Promise<void>((r) => (resolveStop = r));
    const off = rig.engine.onProgress(() => {
      const b0 = rig!.store.listBlocks(id!)[0];
      if (staleCtx === null && b0 && b0.nextOffset > 0 && b0.nextOffset < b0.size) staleCtx = b0.lastCtx;
      if (b0 && b0.nextOffset === b0.size) resolveStop();
    });
    await stop;
    off();
    await rig.engine.close();
    expect(staleCtx).not.toBeNull();
    // Block 0 now claims to be complete with a ctx that is not its block's last.
    rig.db.prepare('UPDATE blocks SET last_ctx = ? WHERE transfer_id = ? AND idx = 0').run(staleCtx, id);
    rig.newEngine();
    const s = await rig.settled(id!);
    expect(s.lastError, JSON.stringify(s)).toBeNull();
    expect(s.state).toBe('done');
    expect(rig.store.getTransfer(id!)!.remoteHash).toBe(etagOfBuffer(data));
    expect(sha1(await rig.download('stale.bin'))).toBe(sha1(data));
    const retries = rig.db
      .prepare("SELECT message FROM event_log WHERE kind = 'retry' AND transfer_id = ?")
      .all(id) as Array<{ message: string }>;
    expect(
      retries.some((r) => /mkfile 401.*reupload-blocks/.test(r.message)),
      JSON.stringify(retries),
    ).toBe(true);
  });
});
