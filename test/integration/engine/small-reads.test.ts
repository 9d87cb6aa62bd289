import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SmallFileReader } from '../../../src-main/engine/small-reader';
import { etagOfBuffer, sha1, startRig, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await rig?.close();
  rig = undefined;
});

describe('engine: small files are read off the main thread', () => {
  it('uploads small files without one synchronous open, stat or read of them on the main thread', async () => {
    rig = await startRig();
    const r = rig;
    const names = Array.from({ length: 40 }, (_, i) => `s${i}.bin`);
    const data = new Map<string, Buffer>();
    for (const [i, name] of names.entries()) data.set(name, await r.file(name, i === 0 ? 0 : 1000 + i * 1500));
    const paths = new Set(names.map((n) => path.join(r.dir, n)));

    // The main thread's node:fs, spied (the named imports too: syncBuiltinESMExports).
    // A worker thread has its own node:fs, which these spies do not see.
    const opened: string[] = [];
    const fds = new Set<number>();
    const openSync = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation((p, ...rest) => {
      const fd = openSync(p, ...rest);
      if (paths.has(String(p))) {
        opened.push(String(p));
        fds.add(fd);
      }
      return fd;
    });
    const onFd = (fd: unknown) => typeof fd === 'number' && fds.has(fd);
    const readSync = vi.spyOn(fs, 'readSync');
    const fstatSync = vi.spyOn(fs, 'fstatSync');
    const readFileSync = vi.spyOn(fs, 'readFileSync');
    syncBuiltinESMExports();

    const ids = r.enqueueFiles(names);
    const snaps = [];
    for (const id of ids) snaps.push(await r.settled(id, 120_000));

    expect(opened).toEqual([]);
    expect(readSync.mock.calls.filter((c) => onFd(c[0]))).toEqual([]);
    expect(fstatSync.mock.calls.filter((c) => onFd(c[0]))).toEqual([]);
    expect(readFileSync.mock.calls.filter((c) => paths.has(String(c[0])))).toEqual([]);
    vi.restoreAllMocks();
    syncBuiltinESMExports();
    for (const [i, name] of names.entries()) {
      const s = snaps[i]!;
      expect(s.state, JSON.stringify(s)).toBe('done');
      expect(s.etag).toBe(etagOfBuffer(data.get(name)!));
      expect(sha1(await r.download(name))).toBe(sha1(data.get(name)!));
    }
  });

  it('does not offer a file larger than a form upload to the reader, whose thread would start only to say "too big"', async () => {
    rig = await startRig();
    const r = rig;
    const big = await r.file('big.bin', 5 * 1024 * 1024 + 123); // over the 4 MiB form upload
    const small = await r.file('small.bin', 70_000);
    const asked = vi.spyOn(SmallFileReader.prototype, 'read');
    const ids = r.engine.enqueue(
      ['big.bin', 'small.bin'].map((name) => ({
        accountId: r.accountId,
        bucket: r.emu.bucket,
        key: name,
        localPath: path.join(r.dir, name),
        source: 'manual' as const,
      })),
    );
    const [bigEnd, smallEnd] = [await r.settled(ids[0]!, 120_000), await r.settled(ids[1]!, 120_000)];
    expect(asked.mock.calls.map((c) => path.basename(c[0]))).toEqual(['small.bin']);
    expect(bigEnd.state, JSON.stringify(bigEnd)).toBe('done');
    expect(bigEnd.etag).toBe(etagOfBuffer(big));
    expect(sha1(await r.download('big.bin'))).toBe(sha1(big));
    expect(smallEnd.state, JSON.stringify(smallEnd)).toBe('done');
    expect(sha1(await r.download('small.bin'))).toBe(sha1(small));
  });
});
