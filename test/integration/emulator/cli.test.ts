import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = path.resolve('bin/blocklift.mjs');

interface Started {
  child: ChildProcess;
  info: Record<string, unknown>;
  stderr: () => string;
}

/** Starts `blocklift emulator --json …` and resolves with its one JSON start line. */
function startCli(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      try {
        resolve({ child, info: JSON.parse(line) as Record<string, unknown>, stderr: () => err });
      } catch (e) {
        reject(e);
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('blocklift emulator (command)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('prints the URLs as one JSON line, serves, warns about test keys, and stops on SIGTERM', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-cli-emu-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const { child, info, stderr } = await startCli([
      '--port',
      '0',
      '--data',
      path.join(dir, 'data'),
      '--bucket',
      'one',
      '--bucket',
      'two',
    ]);
    cleanup.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    expect(info).toMatchObject({ buckets: ['one', 'two'], accessKey: 'blocklift-ak' });
    const port = info.port as number;
    expect(info.uploadUrl).toBe(`http://127.0.0.1:${port}`);
    expect(info.mgrUrl).toBe(`http://127.0.0.1:${port}`);
    expect(info.downloadBaseUrl).toBe(`http://127.0.0.1:${port}/dl`);
    expect(typeof info.adminToken).toBe('string');
    const r = await fetch(`${info.uploadUrl as string}/mkblk/4/0`, { method: 'POST', body: 'abcd' });
    expect(r.status).toBe(401);
    expect(stderr()).toMatch(/test keys/);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('refuses bad flags with a clear message and exit code 2', async () => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--faults', '{"errors":[{"rate":5}]}'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toMatch(/--faults: invalid fault configuration at errors/);
  });
});
