import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_DIR, RotatingLog } from '../../../src-main/service/log-file';
import type { AppEventMessage } from '../../../src-main/shared/contract';

describe('the rotating log file', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rotates by size, keeping the newest generations and deleting the oldest', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-log-'));
    const log = new RotatingLog({ dataDir: dir, maxBytes: 200, keep: 2, now: () => new Date(0) });
    for (let i = 0; i < 12; i++) log.write('info', `line ${i} ${'x'.repeat(40)}`);
    const files = readdirSync(path.join(dir, LOG_DIR)).sort();
    expect(files).toEqual(['blocklift.log', 'blocklift.log.1', 'blocklift.log.2']);
    const current = readFileSync(log.file, 'utf8');
    expect(current).toContain('line 11');
    expect(current.length).toBeLessThanOrEqual(200);
    expect(readFileSync(`${log.file}.2`, 'utf8')).not.toContain('line 0 ');
    expect(current.split('\n')[0]).toMatch(/^1970-01-01T00:00:00\.000Z info line \d+/);
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
