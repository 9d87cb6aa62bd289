import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const RUN_TS = path.join(ROOT, 'bin', 'run-ts.mjs');
const FIXTURE = path.join(ROOT, 'test', 'integration', 'service', 'fixtures', 'open-upload-close.ts');

/** Runs the fixture; resolves with its exit code and output, or 'hung' when it did not exit within timeoutMs of closing. */
function run(
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN_TS, FIXTURE, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    let hung = false;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // From "closed" on, the process has nothing left to do.
      if (stdout.includes('closed') && !timer)
        timer = setTimeout(() => ((hung = true), child.kill('SIGKILL')), timeoutMs);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const overall = setTimeout(() => ((hung = true), child.kill('SIGKILL')), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearTimeout(overall);
      resolve({ code, stdout, stderr, hung });
    });
  });
}

describe('core lifecycle', () => {
  for (const backend of ['parcel', 'chokidar']) {
    it(`close() leaves nothing running: the process exits by itself (${backend} watcher)`, async () => {
      const tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-core-life-')));
      try {
        const folder = path.join(tmp, 'watched');
        await mkdir(folder);
        const r = await run([path.join(tmp, 'data'), folder, backend], 3000);
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain('closed');
        expect(r.hung).toBe(false);
        expect(r.code).toBe(0);
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    }, 70_000);
  }
});
