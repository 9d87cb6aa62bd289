import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_DB_CACHE_KIB } from '../../../src-main/store/app-db';

const ROOT = path.resolve(__dirname, '../../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'bl-page-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the app database keeps its working set in the process', () => {
  it('a second pass over 24 MiB of rows reads (almost) nothing from the kernel, so a page the kernel dropped cannot stall the loop', (ctx) => {
    if (process.platform !== 'linux')
      ctx.skip('reads its own I/O count from /proc/self/task/<pid>/io, which only Linux has');
    expect(APP_DB_CACHE_KIB).toBeGreaterThanOrEqual(32 * 1024);
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin/run-ts.mjs'), path.join(__dirname, 'page-cache-child.ts'), path.join(dir, 'app.db'), '24'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const { tableBytes, readAgain } = JSON.parse(r.stdout) as { tableBytes: number; readAgain: number };
    expect(tableBytes).toBe(24 * 1024 * 1000);
    // better-sqlite3's default cache (16,000 KiB) re-reads most of the table on the second pass.
    expect(readAgain).toBeLessThan(1024 * 1024);
  });
});
