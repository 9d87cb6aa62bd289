/**
 * mkfile is crash-safe: the object, the removal of its blocks and the record of the merge
 * commit together, so an emulator killed after storing the object still answers the
 * client's retry with the object's reply (not a 412 for blocks already merged, nor a 406
 * for an object that now exists), and one that never stored it merges again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import type { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { signUploadToken, type UploadPolicy } from '../../../src-main/protocol/tokens';

const BIN = path.resolve('bin/blocklift.mjs');
const AK = 'crash-ak';
const SK = 'crash-sk';
const MiB = 1024 * 1024;

function startCli(dataDir: string): Promise<{ child: ChildProcess; uploadUrl: string; mgrUrl: string }> {
  const child = spawn(
    process.execPath,
    [BIN, 'emulator', '--json', '--port', '0', '--data', dataDir, '--ak', AK, '--sk', SK],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const info = JSON.parse(line) as { uploadUrl: string; mgrUrl: string };
      resolve({ child, uploadUrl: info.uploadUrl, mgrUrl: info.mgrUrl });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${err}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

/** A callback receiver that holds every request until `answer` is set, and says when one arrived. */
async function startHoldingReceiver() {
  const held: http.ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const firstArrival = new Promise<void>((resolve) => (arrived = resolve));
  let answer: string | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (answer === undefined) {
        held.push(res);
        arrived();
      } else res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    firstArrival,
    answerWith: (body: string) => (answer = body),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('mkfile after a crash', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it('a retry after the emulator was killed while the object was stored (callback under way) gets the reply', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-mkfile-crash-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const rx = await startHoldingReceiver();
    cleanup.push(() => rx.close());
    const key = 'crash/two-blocks.bin';
    const data = randomBytes(4 * MiB + 1234);
    const token = signUploadToken(AK, SK, {
      scope: `local:${key}`,
      deadline: Date.now() + 3_600_000,
      callbackUrl: rx.url,
      callbackBody: 'key=$(key)&hash=$(hash)',
    } as UploadPolicy);
    const batch = randomUUID();

    const first = await startCli(path.join(dir, 'data'));
    cleanup.push(() => killed(first.child));
    const up = new UploadClient({ uploadUrl: first.uploadUrl });
    const b0 = await up.mkblk({ token, blockSize: 4 * MiB, blockOrder: 0, batch, chunk: data.subarray(0, 4 * MiB) });
    const b1 = await up.mkblk({ token, blockSize: 1234, blockOrder: 1, batch, chunk: data.subarray(4 * MiB) });
    const args = { token, fileSize: data.length, batch, ctxs: [b0.ctx, b1.ctx] };
    const lost = up.mkfile(args).catch((e: unknown) => e);
    // The object is stored once the callback is called; the emulator dies before it answers.
    await rx.firstArrival;
    await killed(first.child);
    expect(await lost).toBeInstanceOf(Error);
    up.close();

    const second = await startCli(path.join(dir, 'data'));
    cleanup.push(() => killed(second.child));
    const hash = etagOfBuffer(data);
    rx.answerWith(JSON.stringify({ key, hash, from: 'callback' }));
    const again = new UploadClient({ uploadUrl: second.uploadUrl });
    cleanup.push(async () => again.close());
    const r = await again.mkfile(args);
    expect(r.body).toEqual({ key, hash, from: 'callback' });
    // The same reply once more (recorded now), and the object holds the bytes.
    expect((await again.mkfile(args)).body).toEqual({ key, hash, from: 'callback' });
    const mgr = new MgrClient({ mgrUrl: second.mgrUrl, accessKey: AK, secretKey: SK });
    cleanup.push(async () => mgr.close());
    const got = await mgr.download(`${second.uploadUrl}/dl/local/${key}`);
    expect(got.body.equals(data)).toBe(true);
  });

  it('a retry after a failed callback (579, the object stored) calls it again and gets its reply', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-mkfile-579-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const key = 'cb-retry.bin';
    const data = randomBytes(5000);
    let failing = true;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (failing) res.writeHead(500).end('{}');
        else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ key, hash: 'h', ok: 1 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const emu = await startCli(path.join(dir, 'data'));
    cleanup.push(() => killed(emu.child));
    const token = signUploadToken(AK, SK, {
      scope: `local:${key}`,
      deadline: Date.now() + 3_600_000,
      callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    } as UploadPolicy);
    const up = new UploadClient({ uploadUrl: emu.uploadUrl });
    cleanup.push(async () => up.close());
    const batch = randomUUID();
    const b = await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch, chunk: data });
    const args = { token, fileSize: data.length, batch, ctxs: [b.ctx] };
    const e = await up.mkfile(args).catch((err: unknown) => err);
    expect((e as ServiceError).status).toBe(579);
    failing = false;
    expect((await up.mkfile(args)).body).toEqual({ key, hash: 'h', ok: 1 });
  });
});
