import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs, { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TransferFailure } from '../../../src-main/engine/errors';
import { withoutRootReadRights } from '../../helpers/unprivileged';
import {
  MAX_REREADS_ON_CHANGE,
  SmallFileReader,
  readSmallFile,
  type SyncFs,
} from '../../../src-main/engine/small-reader';

let dir = '';
let reader: SmallFileReader | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-reader-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await reader?.close();
  reader = undefined;
  await rm(dir, { recursive: true, force: true });
});

function file(name: string, size: number): { p: string; data: Buffer } {
  const p = path.join(dir, name);
  const data = randomBytes(size);
  writeFileSync(p, data);
  return { p, data };
}

/** The failure a read ended with (a TransferFailure, by its code and message). */
async function failure(p: Promise<unknown>): Promise<TransferFailure> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TransferFailure);
  return e as TransferFailure;
}

describe('SmallFileReader (a worker thread reads small files whole)', () => {
  it('reads files whole, with their whole-ms mtime; a file over the limit reads as undefined', async () => {
    reader = new SmallFileReader();
    const a = file('a.bin', 64 * 1024);
    const empty = file('empty.bin', 0);
    const big = file('big.bin', 1001);
    const [ra, re, rb] = await Promise.all([
      reader.read(a.p, 1000 * 1000),
      reader.read(empty.p, 1000),
      reader.read(big.p, 1000),
    ]);
    expect(ra!.data.equals(a.data)).toBe(true);
    expect(ra!.mtimeMs).toBe(Math.floor(statSync(a.p).mtimeMs));
    expect(re!.data.length).toBe(0);
    expect(rb).toBeUndefined();
    expect(reader.threadsStarted).toBe(1);
  });

  it('asks in one message per turn and answers in batches bounded by bytes', async () => {
    reader = new SmallFileReader({ postBytes: 1000 * 1000, postMs: Infinity });
    const files = Array.from({ length: 8 }, (_, i) => file(`f${i}.bin`, 200 * 1000));
    const asked = vi.spyOn(Worker.prototype, 'postMessage');
    const reads = files.map((f) => reader!.read(f.p, 256 * 1024));
    await new Promise((r) => setImmediate(r));
    let answers = 0;
    reader.thread!.on('message', () => answers++);
    const got = await Promise.all(reads);
    expect(asked).toHaveBeenCalledTimes(1);
    // 5 files reach the 1,000,000 bytes: one message for them, one for the other 3.
    expect(answers).toBe(2);
    got.forEach((g, i) => expect(g!.data.equals(files[i]!.data)).toBe(true));
  });

  it('a FIFO fails at once as not a regular file (the open does not wait for a writer), so does a directory', async (t) => {
    if (process.platform === 'win32') t.skip('FIFOs (mkfifo) exist on POSIX systems only');
    reader = new SmallFileReader();
    const fifo = path.join(dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    for (const p of [fifo, sub]) {
      const e = await failure(reader.read(p, 1000));
      expect(e.code).toBe('file-unreadable');
      expect(e.message).toBe(`${p} is not a regular file`);
    }
  });

  it('a missing file is file-missing (the errno crosses the thread as data)', async () => {
    reader = new SmallFileReader();
    const gone = path.join(dir, 'gone.bin');
    const e = await failure(reader.read(gone, 1000));
    expect(e.code).toBe('file-missing');
    expect(e.message).toBe(`${gone} does not exist (moved or deleted?)`);
  });

  it('a file without read permission is file-unreadable', () => {
    // Root reads every file: the reader runs in a child without that right (as a user's would).
    const locked = file('locked.bin', 10);
    fs.chmodSync(locked.p, 0o000);
    const [command, args] = withoutRootReadRights(process.execPath, [
      'bin/run-ts.mjs',
      'test/unit/engine/helpers/read-child.ts',
      locked.p,
    ]);
    const ended = JSON.parse(execFileSync(command, args, { encoding: 'utf8' })) as { code?: string; message?: string };
    expect(ended).toEqual({ code: 'file-unreadable', message: `${locked.p} cannot be read: permission denied` });
  });

  it('a file whose size never matches what was read (a sysfs file) is file-changed after the rereads', async (t) => {
    // sysfs says 4096 bytes and gives a few: every read sees another size than the one before.
    const sysfs = '/sys/devices/system/cpu/online';
    if (!existsSync(sysfs)) t.skip(`${sysfs} exists on Linux only`);
    reader = new SmallFileReader();
    const e = await failure(reader.read(sysfs, 256 * 1024));
    expect(e.code).toBe('file-changed');
    expect(e.message).toBe(`${sysfs} kept changing while it was read; upload it again when it is complete`);
  });

  it('a read whose signal aborts rejects with the reason; the others go on', async () => {
    reader = new SmallFileReader();
    const a = file('a.bin', 1000);
    const b = file('b.bin', 1000);
    const ctrl = new AbortController();
    const ra = reader.read(a.p, 1000, ctrl.signal);
    const rb = reader.read(b.p, 1000);
    ctrl.abort(new Error('paused'));
    await expect(ra).rejects.toThrow('paused');
    expect((await rb)!.data.equals(b.data)).toBe(true);
  });

  it('a reader thread that dies loses no read: they are asked again of a new thread', async () => {
    reader = new SmallFileReader();
    const files = Array.from({ length: 5 }, (_, i) => file(`c${i}.bin`, 5000 + i));
    const reads = files.map((f) => reader!.read(f.p, 256 * 1024));
    await new Promise((r) => setImmediate(r)); // the batch went to the first thread, which is still starting
    const first = reader.thread!;
    await first.terminate();
    const got = await Promise.all(reads);
    got.forEach((g, i) => expect(g!.data.equals(files[i]!.data)).toBe(true));
    expect(reader.threadsStarted).toBe(2);
    expect(reader.thread).not.toBe(first);
  });

  it('a read held by two threads that died fails as file-unreadable; the next read starts a third', async () => {
    reader = new SmallFileReader();
    const f = file('d.bin', 5000);
    const read = failure(reader.read(f.p, 256 * 1024));
    for (let death = 0; death < 2; death++) {
      await new Promise((r) => setImmediate(r)); // the read went to a thread, still starting
      const t = reader.thread!;
      const exited = new Promise((r) => t.once('exit', r));
      await t.terminate();
      await exited;
    }
    const e = await read;
    expect(e.code).toBe('file-unreadable');
    expect(e.message).toMatch(
      new RegExp(`^${f.p} could not be read: the reading thread stopped twice while it read it`),
    );
    expect((await reader.read(f.p, 256 * 1024))!.data.equals(fs.readFileSync(f.p))).toBe(true);
    expect(reader.threadsStarted).toBe(3);
  });

  it('close ends the thread; a read after it is refused', async () => {
    reader = new SmallFileReader();
    const a = file('a.bin', 10);
    await reader.read(a.p, 1000);
    const t = reader.thread!;
    const exited = new Promise((r) => t.once('exit', r));
    await reader.close();
    await exited;
    await expect(reader.read(a.p, 1000)).rejects.toThrow('closed');
  });
});

describe('readSmallFile (what the thread runs), with the real node:fs and a change made mid-read', () => {
  /** node:fs whose readSync runs `change` after each read of the file (the file really changes between read and fstat). */
  function changingFs(change: (n: number) => void): SyncFs {
    let n = 0;
    return {
      constants: fs.constants,
      openSync: fs.openSync,
      fstatSync: fs.fstatSync,
      closeSync: fs.closeSync,
      readSync: (fd, buffer, offset, length, position) => {
        const got = fs.readSync(fd, buffer, offset, length, position);
        change(++n);
        return got;
      },
    };
  }
  const later = (p: string, n: number) => fs.utimesSync(p, new Date(), new Date(Date.now() + n * 10_000));

  it('a file changed during its first read is read again, and the bytes and mtime are the second read’s', () => {
    const { p } = file('x.bin', 1000);
    const second = randomBytes(1500);
    const r = readSmallFile(
      changingFs((n) => {
        if (n === 1) {
          writeFileSync(p, second);
          later(p, 1);
        }
      }),
      p,
      256 * 1024,
      MAX_REREADS_ON_CHANGE,
    );
    expect(r.kind).toBe('read');
    if (r.kind !== 'read') return;
    expect(r.data.equals(second)).toBe(true);
    expect(r.mtimeMs).toBe(Math.floor(statSync(p).mtimeMs));
  });

  it('a file that changes at every read is "changed" after MAX_REREADS_ON_CHANGE rereads', () => {
    const { p } = file('y.bin', 1000);
    let reads = 0;
    const r = readSmallFile(
      changingFs((n) => {
        reads = n;
        later(p, n);
      }),
      p,
      256 * 1024,
      MAX_REREADS_ON_CHANGE,
    );
    expect(r).toMatchObject({ kind: 'fail', stage: 'changed' });
    expect(reads).toBe(1 + MAX_REREADS_ON_CHANGE);
  });

  it('a file that grows past the limit while read is "changed" at once; one cut short is read again at its new size', () => {
    const grows = file('g.bin', 1000).p;
    expect(
      readSmallFile(
        changingFs(() => fs.appendFileSync(grows, randomBytes(2000))),
        grows,
        2500,
        MAX_REREADS_ON_CHANGE,
      ),
    ).toMatchObject({ kind: 'fail', stage: 'changed' });
    const shrinks = file('s.bin', 1000).p;
    const r = readSmallFile(
      changingFs((n) => n === 1 && fs.truncateSync(shrinks, 300)),
      shrinks,
      2500,
      MAX_REREADS_ON_CHANGE,
    );
    expect(r.kind).toBe('read');
    if (r.kind === 'read') expect(r.data.equals(fs.readFileSync(shrinks))).toBe(true);
  });
});
