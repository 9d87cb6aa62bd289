import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli';

/** `blocklift serve`'s answers to a data folder it cannot use: usage errors that say what to do. */

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-serve-usage-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('serve and its data folder', () => {
  it('--data naming a file (or a folder under a file) is a usage error (exit 2) that says the data folder is a file', async () => {
    const file = path.join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    for (const data of [file, path.join(file, 'sub')]) {
      const r = await runCli(['serve', '--port', '0', '--data', data], {
        cwd: dir,
        env: { BLOCKLIFT_DATA: path.join(dir, 'unused') },
        killAfterMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('is a file, not a folder');
      expect(r.stderr).not.toContain('unexpected error');
      expect(r.stderr).not.toContain('ENOTDIR');
    }
  });

  it('a second serve on a data folder in use says to use another --data (serve has no --db)', async () => {
    const data = path.join(dir, 'data');
    const first = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', data], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        first.stdout.on('data', (d: Buffer) => {
          out += String(d);
          if (out.includes('is running')) resolve();
        });
        first.once('exit', (code) => reject(new Error(`the first serve exited ${code}`)));
      });
      const r = await runCli(['serve', '--port', '0', '--data', data], {
        cwd: dir,
        env: { BLOCKLIFT_DATA: path.join(dir, 'unused') },
        killAfterMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`in use by process ${first.pid}`);
      expect(r.stderr).toContain('--data');
      expect(r.stderr).not.toContain('--db');
    } finally {
      const exited = new Promise((resolve) => first.once('exit', resolve));
      first.kill('SIGTERM');
      await exited;
    }
  });
});
