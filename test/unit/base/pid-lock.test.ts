import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive, readPidLock, takePidLock } from '../../../src-main/base/pid-lock';

/** A pid no process has (the kernel's pid_max is far below it). */
const GONE = 2147483646;

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-pid-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('pid lock', () => {
  it('tells a live process from a gone one', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.ppid)).toBe(true);
    expect(processAlive(GONE)).toBe(false);
  });

  it('writes this pid and the details, refuses a live holder naming it, and releases only its own lock', () => {
    const file = path.join(dir, 'q.lock');
    writeFileSync(file, JSON.stringify({ pid: process.ppid, command: 'blocklift serve' }));
    const refused = takePidLock(file, { details: { command: 'blocklift upload' } });
    expect(refused).toEqual({ ok: false, holder: { pid: process.ppid, details: { command: 'blocklift serve' } } });
    rmSync(file);
    const lock = takePidLock(file, { details: { command: 'blocklift upload' } });
    expect(lock.ok).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ pid: process.pid, command: 'blocklift upload' });
    expect(readdirNames()).toEqual(['q.lock']); // the temp file is gone
    // Someone else's lock now: release leaves it.
    writeFileSync(file, String(process.ppid));
    if (lock.ok) lock.release();
    expect(readPidLock(file)).toEqual({ pid: process.ppid, details: {} });
  });

  it('takes over a stale lock (a gone process, or unreadable), and its own unless told its own holds', () => {
    const file = path.join(dir, 'emulator.lock');
    writeFileSync(file, String(GONE));
    const first = takePidLock(file, { ownProcessHolds: true });
    expect(first.ok).toBe(true);
    expect(takePidLock(file, { ownProcessHolds: true })).toEqual({
      ok: false,
      holder: { pid: process.pid, details: {} },
    });
    const again = takePidLock(file);
    expect(again.ok).toBe(true);
    if (again.ok) {
      again.release();
      again.release();
    }
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, '');
    expect(takePidLock(file).ok).toBe(true);
  });
});

function readdirNames(): string[] {
  return readdirSync(dir).sort();
}
