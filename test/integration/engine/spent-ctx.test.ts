import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockContext } from '../../../src-main/protocol/types';
import { MiB, etagOfBuffer, sha1, startRig, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const KiB = 1024;

describe('engine: a block whose saved ctx was already used (a kill after the chunk was sent)', () => {
  it('restarts that block after one new token, even when other blocks accept the new token in between', async () => {
    rig = await startRig({
      engine: { chunkBytes: 256 * KiB, bandwidthBytesPerSec: 4 * MiB, limits: { maxBlocksPerFile: 2 } },
    });
    const size = 8 * MiB; // two blocks of 4 MiB, both in flight
    const data = await rig.file('spent.bin', size);
    const [id] = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: rig.emu.bucket,
        key: 'spent.bin',
        localPath: path.join(rig.dir, 'spent.bin'),
        source: 'manual',
      },
    ]);
    // Keep a ctx of block 0 (and its offset); stop once block 0 has gone past it, both blocks part-way.
    let spentCtx: string | null = null;
    let spentAt = 0;
    let resolveStop!: () => void;
    const stop = new Promise<void>((r) => (resolveStop = r));
    const off = rig.engine.onProgress(() => {
      const [b0, b1] = rig!.store.listBlocks(id!);
      if (spentCtx === null && b0 && b0.nextOffset > 0 && b0.nextOffset < 2 * MiB) {
        spentCtx = b0.lastCtx;
        spentAt = b0.nextOffset;
      }
      if (spentCtx && b0 && b1 && b0.nextOffset > spentAt && b0.nextOffset < 4 * MiB && b1.nextOffset < 3 * MiB)
        resolveStop();
    });
    await stop;
    off();
    await rig.engine.close();
    expect(spentCtx).not.toBeNull();
    // As after a kill between sending a chunk and recording its reply: block 0's saved ctx is one the service has used.
    rig.db
      .prepare('UPDATE blocks SET last_ctx = ?, next_offset = ? WHERE transfer_id = ? AND idx = 0')
      .run(spentCtx, spentAt, id);

    // Every retry of the spent ctx waits until a chunk of block 1 was accepted with the same
    // (new) token: the new token is then no longer "fresh", the interleaving that made the
    // engine ask for a new token again and again until its retries ran out.
    const client = rig.client;
    const realBput = client.bput.bind(client);
    const acceptedWith = new Map<string, number>();
    let spentTries = 0;
    let wake: (() => void) | undefined;
    client.bput = async (a): Promise<BlockContext> => {
      if (a.ctx === spentCtx) {
        spentTries++;
        // (At most 3 s: once block 1 is done nothing accepts a token any more.)
        const until = Date.now() + 3000;
        while (spentTries > 1 && !acceptedWith.get(a.token) && Date.now() < until)
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 100);
          });
        return realBput(a);
      }
      const reply = await realBput(a);
      acceptedWith.set(a.token, (acceptedWith.get(a.token) ?? 0) + 1);
      wake?.();
      return reply;
    };

    rig.newEngine();
    const s = await rig.settled(id!);
    expect(s.lastError, JSON.stringify(s)).toBeNull();
    expect(s.state).toBe('done');
    expect(rig.store.getTransfer(id!)!.remoteHash).toBe(etagOfBuffer(data));
    expect(sha1(await rig.download('spent.bin'))).toBe(sha1(data));
    // One new token, one more refusal, then the block started over.
    expect(spentTries).toBe(2);
    const retries = rig.db
      .prepare("SELECT message FROM event_log WHERE kind = 'retry' AND transfer_id = ?")
      .all(id) as Array<{ message: string }>;
    expect(retries.map((r) => r.message.replace(/^.*→ /, ''))).toEqual(['refresh-token', 'restart-block']);
  });
});
