import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MiB, etagOfBuffer, sha1, startRig, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('engine against the emulator', () => {
  it('uploads multi-block files with several chunks per block, bit-exact, etag verified', async () => {
    rig = await startRig({ engine: { chunkBytes: 1 * MiB } });
    const sizes: Array<[string, number]> = [
      ['a.bin', 9 * MiB + 12345],
      ['b.bin', 4 * MiB],
      ['c.bin', 1],
      ['empty.bin', 0],
      ['d.bin', 3 * MiB + 7],
    ];
    const data = new Map<string, Buffer>();
    for (const [name, size] of sizes) data.set(name, await rig.file(name, size));
    const ids = rig.engine.enqueue(
      sizes.map(([name]) => ({
        accountId: rig!.accountId,
        bucket: rig!.emu.bucket,
        key: `dir/${name}`,
        localPath: path.join(rig!.dir, name),
        source: 'manual',
      })),
    );
    for (const [i, id] of ids.entries()) {
      const s = await rig.settled(id);
      const name = sizes[i]![0];
      expect(s.lastError).toBeNull();
      expect(s.state).toBe('done');
      expect(s.etag).toBe(etagOfBuffer(data.get(name)!));
      expect(sha1(await rig.download(`dir/${name}`))).toBe(sha1(data.get(name)!));
      expect(rig.store.getTransfer(id)!.remoteHash).toBe(s.etag);
    }
    expect(rig.store.listBlocks(ids[0]!)).toEqual([]); // blocks are forgotten once merged
  });

  it('uses 8 MiB blocks when asked and keeps mime type, deadline, variables and returnBody', async () => {
    const { LocalTokenSigner } = await import('../../../src-main/engine/tokens');
    rig = await startRig({
      engine: { chunkBytes: 2 * MiB },
      tokens: (emu) =>
        new LocalTokenSigner(emu.config.accessKey, emu.config.secretKey, {
          now: () => emu.clock.now(),
          policy: { returnBody: 'name=$(fname)&size=$(fsize)&who=$(x:user)&mime=$(mimeType)' },
        }),
    });
    const data = await rig.file('big.bin', 17 * MiB);
    const [id] = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: rig.emu.bucket,
        key: 'big.bin',
        localPath: path.join(rig.dir, 'big.bin'),
        source: 'cli',
        blockSize: 8 * MiB,
        options: { mimeType: 'application/x-test', deadlineDays: 3, vars: { user: 'ann' } },
      },
    ]);
    const s = await rig.settled(id!);
    expect(s.lastError).toBeNull();
    expect(s.state).toBe('done');
    expect(sha1(await rig.download('big.bin'))).toBe(sha1(data));
    const obj = rig.emu.objects.stat(rig.emu.bucket, 'big.bin')!;
    expect(obj.mimeType).toBe('application/x-test');
    expect(obj.expiresAt).not.toBeNull();
    const rb = rig.store.getTransfer(id!)!.returnBody!;
    expect(rb).toMatchObject({
      size: String(17 * MiB),
      who: 'ann',
      mime: 'application/x-test',
      key: 'big.bin',
      hash: s.etag,
    });
  });

  it('gives a clear error for a missing file and for an unknown bucket, without crashing', async () => {
    rig = await startRig();
    await rig.file('ok.bin', 1000);
    const ids = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: rig.emu.bucket,
        key: 'nope',
        localPath: path.join(rig.dir, 'missing.bin'),
        source: 'manual',
      },
      {
        accountId: rig.accountId,
        bucket: 'no-such-bucket',
        key: 'ok',
        localPath: path.join(rig.dir, 'ok.bin'),
        source: 'manual',
      },
    ]);
    const a = await rig.settled(ids[0]!);
    const b = await rig.settled(ids[1]!);
    expect(a.state).toBe('failed');
    expect(a.lastError?.code).toBe('file-missing');
    expect(a.lastError?.message).toContain('does not exist');
    expect(b.state).toBe('failed');
    expect(b.lastError?.code).toBe('no-such-bucket');
  });
});
