import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zipBuffer } from '../../../src-main/base/zip';

describe('zipBuffer', () => {
  it('writes an archive unzip tests and extracts byte for byte: deflated, stored, empty and UTF-8 names', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bl-zip-'));
    try {
      const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251));
      const entries = [
        { name: 'a.txt', data: Buffer.from('hello '.repeat(1000)) },
        { name: 'dir/ünïcode.bin', data: random },
        { name: 'empty', data: Buffer.alloc(0) },
      ];
      const file = path.join(dir, 'x.zip');
      writeFileSync(file, zipBuffer(entries));
      expect(execFileSync('unzip', ['-tq', file], { encoding: 'utf8' })).toContain('No errors');
      for (const e of entries) expect(execFileSync('unzip', ['-p', file, e.name]).equals(e.data), e.name).toBe(true);
      expect(execFileSync('unzip', ['-l', file], { encoding: 'utf8' })).toContain('dir/ünïcode.bin');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
