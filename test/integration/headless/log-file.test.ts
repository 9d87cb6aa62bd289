import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_DIR, RotatingLog } from '../../../src-main/service/log-file';
import type { AppEventMessage } from '../../../src-main/shared/contract';

describe('the rotating log file', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rotates by size, keeping the newest generations and deleting the oldest', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-log-'));
    const log = new RotatingLog({ dataDir: dir, maxBytes: 200, keep: 2, now: () => new Date(0) });
    for (let i = 0; i < 12; i++) log.write('info', `line ${i} ${'x'.repeat(40)}`);
    await log.settled();
    const files = readdirSync(path.join(dir, LOG_DIR)).sort();
    expect(files).toEqual(['blocklift.log', 'blocklift.log.1', 'blocklift.log.2']);
    const current = readFileSync(log.file, 'utf8');
    expect(current).toContain('line 11');
    expect(current.length).toBeLessThanOrEqual(200);
    expect(readFileSync(`${log.file}.2`, 'utf8')).not.toContain('line 0 ');
    expect(current.split('\n')[0]).toMatch(/^1970-01-01T00:00:00\.000Z info line \d+/);
  });

  it('deletes the oldest generation off the thread: renamed aside by the write, gone once settled', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-log-'));
    const logs = path.join(dir, LOG_DIR);
    const log = new RotatingLog({ dataDir: dir, maxBytes: 100, keep: 2, now: () => new Date(0) });
    // Each line (about 70 bytes) fills a file: line i is in the current file, i-1 in .1, i-2 in .2.
    for (let i = 0; i < 3; i++) log.write('info', `line ${i} ${'x'.repeat(30)}`);
    expect(readFileSync(`${log.file}.2`, 'utf8')).toContain('line 0 ');
    log.write('info', `line 3 ${'x'.repeat(30)}`);
    // The write returned before the delete could run: line 0's file is still there, under the
    // name it was renamed to, and the generations moved on.
    const aside = readdirSync(logs).filter((n) => !/^blocklift\.log(\.\d+)?$/.test(n));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(logs, aside[0]!), 'utf8')).toContain('line 0 ');
    expect(readFileSync(`${log.file}.2`, 'utf8')).toContain('line 1 ');
    expect(readFileSync(`${log.file}.1`, 'utf8')).toContain('line 2 ');
    expect(readFileSync(log.file, 'utf8')).toContain('line 3 ');
    await log.settled();
    expect(readdirSync(logs).sort()).toEqual(['blocklift.log', 'blocklift.log.1', 'blocklift.log.2']);
  });

  it('deletes a generation a crash left renamed aside, at the next start', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-log-'));
    const logs = path.join(dir, LOG_DIR);
    mkdirSync(logs);
    writeFileSync(path.join(logs, 'blocklift.log'), 'kept\n');
    writeFileSync(path.join(logs, 'blocklift.log.deleting-1-1'), 'left by a crash\n');
    const log = new RotatingLog({ dataDir: dir });
    await log.settled();
    expect(readdirSync(logs)).toEqual(['blocklift.log']);
    expect(readFileSync(log.file, 'utf8')).toBe('kept\n');
  });

  it('writes every problem event of the service it follows, and stops when told', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-log-'));
    const log = new RotatingLog({ dataDir: dir });
    const listeners = new Set<(e: AppEventMessage) => void>();
    const off = log.follow((l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    });
    const problem = { code: 'root-refused', message: 'the folder is gone', params: {}, at: 0, rootId: 3 };
    for (const l of listeners) l({ name: 'problems', payload: { problems: [problem] } });
    off();
    expect(listeners.size).toBe(0);
    expect(readFileSync(log.file, 'utf8')).toMatch(/warn problem root-refused \(root 3\): the folder is gone/);
    expect(existsSync(`${log.file}.1`)).toBe(false);
  });
});
