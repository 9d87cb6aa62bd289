import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../src-main/base/logger';
import type { HostMode } from '../../../src-main/emulator/host';
import { EMULATOR_NODE_FLAGS } from '../../../src-main/emulator/node-flags';
import { AppCore } from '../../../src-main/service/app-core';
import { LOCAL_ACCOUNT_NAME } from '../../../src-main/service/embedded';
import { CoreWorld, FAST_EMULATOR, isType } from './harness';

/** A logger that keeps every line, as the app's log file would get it. */
function keptLogger(lines: string[]): Logger {
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Asks `url` from another thread while this thread is blocked for `blockMs`; resolves with
 * how long the reply took. An emulator on this thread cannot answer before it is free.
 */
async function replyTimeWhileBlocked(url: string, blockMs: number): Promise<number> {
  const w = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const http = require('node:http');
     parentPort.postMessage('ready');
     parentPort.once('message', (url) => {
       const t = performance.now();
       http.get(url, (res) => { res.resume(); res.on('end', () => parentPort.postMessage(performance.now() - t)); })
         .on('error', (e) => parentPort.postMessage(String(e)));
     });`,
    { eval: true },
  );
  try {
    await new Promise((r) => w.once('message', r));
    const answer = new Promise<unknown>((r) => w.once('message', r));
    w.postMessage(url);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, blockMs);
    const ms = await answer;
    if (typeof ms !== 'number') throw new Error(`the request failed: ${String(ms)}`);
    return ms;
  } finally {
    await w.terminate();
  }
}

async function uploadOne(w: CoreWorld, core: AppCore, key: string): Promise<void> {
  const file = path.join(w.tmp, `${key}.txt`);
  writeFileSync(file, `bytes of ${key}\n`);
  const local = core.accounts.byName(LOCAL_ACCOUNT_NAME)!;
  const [id] = core.engine.enqueue([{ accountId: local.id, bucket: 'local', key, localPath: file, source: 'manual' }]);
  const done = await w.waitFor(
    isType('transfer-changed', (e) => e.transfer.id === id && ['done', 'failed'].includes(e.transfer.state)),
  );
  expect(done.transfer.lastError).toBeNull();
  expect(done.transfer.state).toBe('done');
}

/** Whether something accepts connections on 127.0.0.1:port. */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

describe.each<HostMode>(['worker', 'child'])('the embedded emulator off the app loop (%s)', (hostMode) => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  const open = (lines: string[]) =>
    w.open({ emulatorOptions: { ...FAST_EMULATOR, hostMode }, logger: keptLogger(lines) });

  it("answers requests while the app's thread is blocked", async () => {
    w = await CoreWorld.create();
    const core = await open([]);
    const emu = core.embedded!.emulator;
    const ms = await replyTimeWhileBlocked(`${emu.downloadBaseUrl}/local/none`, 1500);
    expect(ms).toBeLessThan(1000);
    const where = await emu.where();
    expect(hostMode === 'worker' ? where.threadId : where.pid).not.toBe(hostMode === 'worker' ? 0 : process.pid);
  });

  it("runs below the app's priority, and leaves the app's own as it was", async () => {
    const before = os.getPriority(0);
    w = await CoreWorld.create();
    const core = await open([]);
    const where = await core.embedded!.emulator.where();
    expect(where.priority).toBe(Math.min(19, before + 10));
    expect(os.getPriority(0)).toBe(before);
    if (hostMode === 'child' && process.platform === 'linux') {
      // The kernel's word (field 19 of /proc/<pid>/stat is the nice value).
      const stat = readFileSync(`/proc/${where.pid}/stat`, 'utf8');
      expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(where.priority);
    }
  });

  it("as a child process, runs with the emulator's V8 flags (emulator/node-flags.ts)", async (ctx) => {
    if (hostMode !== 'child') ctx.skip("a worker thread shares the app's process and its V8 flags");
    if (process.platform !== 'linux') ctx.skip("reads the child's command line in /proc, which only Linux has");
    w = await CoreWorld.create();
    const core = await open([]);
    const where = await core.embedded!.emulator.where();
    const argv = readFileSync(`/proc/${where.pid}/cmdline`, 'utf8').split('\0');
    expect(EMULATOR_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of EMULATOR_NODE_FLAGS) expect(argv).toContain(flag);
  });

  it('after a crash: logged, restarted on the same port and data, an upload works', async () => {
    w = await CoreWorld.create();
    const lines: string[] = [];
    const core = await open(lines);
    await uploadOne(w, core, 'before.txt');
    const emu = core.embedded!.emulator;
    const port = emu.port;
    emu.kill();
    await vi.waitFor(() => expect(lines.some((l) => l.includes('stopped unexpectedly'))).toBe(true), {
      timeout: 10_000,
    });
    await emu.whenRunning();
    expect(emu.restarts).toBe(1);
    expect(emu.port).toBe(port);
    expect(lines.some((l) => l.startsWith('error embedded emulator: stopped unexpectedly'))).toBe(true);
    expect((await emu.objects.stat('local', 'before.txt'))?.size).toBe('bytes of before.txt\n'.length);
    await uploadOne(w, core, 'after.txt');
    expect((await emu.objects.stat('local', 'after.txt'))?.size).toBe('bytes of after.txt\n'.length);
  });

  it("after a crash with its port taken: restarted on another, the Local account's URLs follow", async () => {
    w = await CoreWorld.create();
    const lines: string[] = [];
    const core = await open(lines);
    const emu = core.embedded!.emulator;
    const port = emu.port;
    emu.kill();
    await vi.waitFor(() => expect(lines.some((l) => l.includes('stopped unexpectedly'))).toBe(true), {
      timeout: 10_000,
    });
    const squatter = net.createServer();
    await new Promise<void>((resolve, reject) => {
      squatter.once('error', reject);
      squatter.listen(port, '127.0.0.1', resolve);
    });
    try {
      await emu.whenRunning();
      expect(emu.port).not.toBe(port);
      const local = core.accounts.byName(LOCAL_ACCOUNT_NAME)!;
      expect(local.uploadUrl).toBe(emu.uploadUrl);
      expect(local.downloadDomain).toBe(`${emu.downloadBaseUrl}/local`);
      await uploadOne(w, core, 'moved.txt');
    } finally {
      squatter.close();
    }
  });

  it('quit waits until it stopped: lock released, port closed', async () => {
    w = await CoreWorld.create();
    const core = await open([]);
    const emu = core.embedded!.emulator;
    await uploadOne(w, core, 'x.txt');
    const where = await emu.where();
    await w.closeCore();
    expect(existsSync(path.join(emu.dataDir, 'emulator.lock'))).toBe(false);
    expect(await answers(emu.port)).toBe(false);
    if (hostMode === 'child') expect(() => process.kill(where.pid, 0)).toThrow();
  });
});

describe('an app killed with its emulator child', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('the child stops by itself and an app restarted at once on the same data gets its emulator', async () => {
    w = await CoreWorld.create();
    const here = path.dirname(fileURLToPath(import.meta.url));
    const app = spawn(process.execPath, [
      path.join(here, '../../../bin/run-ts.mjs'),
      path.join(here, 'fixtures/open-and-wait.ts'),
      w.dataDir,
    ]);
    let out = '';
    app.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => app.once('exit', r));
    await vi.waitFor(() => expect(out).toMatch(/emulator pid \d+/), { timeout: 30_000, interval: 100 });
    const pid = Number(/emulator pid (\d+)/.exec(out)![1]);
    app.kill('SIGKILL');
    await exited;
    // At once: the old emulator may still hold its data folder for a moment.
    const core = await w.open({ emulatorOptions: { ...FAST_EMULATOR, hostMode: 'child' } });
    expect(core).toBeInstanceOf(AppCore);
    await uploadOne(w, core, 'again.txt');
    // The old one exits once it stopped (it is not this process's child: no zombie is left).
    await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(), { timeout: 10_000, interval: 100 });
  });
});
