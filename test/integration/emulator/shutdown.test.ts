/**
 * `blocklift emulator` stops on SIGTERM whatever its clients left behind: pipelined
 * requests on a connection the client hung up, downloads still streaming. It exits with 0
 * and removes its emulator.lock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src-main/emulator/server';

const BIN = path.resolve('bin/blocklift.mjs');
const MiB = 1024 * 1024;

function startCli(dataDir: string): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--json', '--port', '0', '--data', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      resolve({ child, port: (JSON.parse(line) as { port: number }).port, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Sends `count` pipelined GETs of `key`, waits for the first reply bytes, then hangs up (half-close or reset). */
function pipelineAndHangUp(port: number, keys: string[], how: 'end' | 'destroy'): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined); // the hang-up may meet a reset; that is the point
    socket.once('connect', () => {
      socket.write(keys.map((k) => `GET /dl/local/${k} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    });
    socket.once('data', () => {
      socket.pause(); // stop reading: the server's writes back up
      if (how === 'end') socket.end();
      else socket.destroy();
      resolve();
    });
    socket.once('close', () => resolve());
    socket.setTimeout(30_000, () => reject(new Error('no reply to the pipelined GETs')));
  });
}

describe('emulator shutdown', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('exits 0 on SIGTERM after clients hung up on pipelined downloads, and removes its lock', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-emu-stop-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const dataDir = path.join(dir, 'data');
    const seed = await startEmulator({ dataDir, port: 0 });
    seed.objects.putBuffer('local', 'big-a', Buffer.alloc(16 * MiB, 1), {});
    seed.objects.putBuffer('local', 'big-b', Buffer.alloc(16 * MiB, 2), {});
    await seed.close();

    const { child, port, stderr } = await startCli(dataDir);
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    for (let i = 0; i < 3; i++) {
      await pipelineAndHangUp(port, ['big-a', 'big-b'], 'end');
      await pipelineAndHangUp(port, ['big-b', 'big-a', 'big-b'], 'destroy');
    }
    // A client that keeps its connection open and stops reading mid-download.
    const stuck = net.connect(port, '127.0.0.1');
    stuck.on('error', () => undefined);
    cleanup.push(async () => void stuck.destroy());
    stuck.write('GET /dl/local/big-a HTTP/1.1\r\nHost: x\r\n\r\nGET /dl/local/big-b HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => stuck.once('data', resolve));
    stuck.pause();

    child.kill('SIGTERM');
    const code = await exited(child);
    expect({ code, stderr: stderr() }).toMatchObject({ code: 0 });
    expect(existsSync(path.join(dataDir, 'emulator.lock'))).toBe(false);
  });
});
