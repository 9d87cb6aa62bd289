import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathFilter } from '../../../src-main/sync/path-filter';
import { RootUnavailableError, scanTree, type DirScan } from '../../../src-main/sync/scanner';
import { withoutRootReadRights } from '../../helpers/unprivileged';

const filter = new PathFilter({ ignore: ['*.log'], useDefaultIgnores: true, includeOnly: [], includeHidden: false });

async function collect(root: string, symlinks: 'skip' | 'follow' = 'skip'): Promise<DirScan[]> {
  const out: DirScan[] = [];
  for await (const d of scanTree({ root, filter, symlinks })) out.push(d);
  return out;
}
/** Scans in a child without root's right to read every folder (a test run as root). */
async function scanUnprivileged(root: string): Promise<DirScan[]> {
  const [command, args] = withoutRootReadRights(process.execPath, [
    'bin/run-ts.mjs',
    'test/unit/sync/helpers/scan-child.ts',
    root,
  ]);
  const { stdout } = await promisify(execFile)(command, args);
  return JSON.parse(stdout) as DirScan[];
}
const files = (scans: DirScan[]) => scans.flatMap((d) => d.files.map((f) => f.relPath)).sort();
const problems = (scans: DirScan[]) => scans.flatMap((d) => d.problems);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-scan-'));
});
afterEach(async () => {
  await chmod(path.join(dir, 'locked'), 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('scanTree', () => {
  it('lists files with size and mtime, "/" paths, leaving out ignored files and folders', async () => {
    await mkdir(path.join(dir, 'a/b'), { recursive: true });
    await mkdir(path.join(dir, '.git'));
    await writeFile(path.join(dir, 'top.txt'), 'hello');
    await writeFile(path.join(dir, 'a/b/deep.bin'), Buffer.alloc(1000));
    await writeFile(path.join(dir, 'a/skip.log'), 'xx');
    await writeFile(path.join(dir, 'a/.hidden'), 'x');
    await writeFile(path.join(dir, '.git/HEAD'), 'ref');
    const scans = await collect(dir);
    expect(files(scans)).toEqual(['a/b/deep.bin', 'top.txt']);
    const deep = scans.flatMap((d) => d.files).find((f) => f.relPath === 'a/b/deep.bin');
    expect(deep?.size).toBe(1000);
    expect(deep?.mtimeMs).toBeGreaterThan(0);
    expect(scans.reduce((n, d) => n + d.ignoredFiles, 0)).toBe(2);
    expect(scans.reduce((n, d) => n + d.ignoredBytes, 0)).toBe(3);
  });

  it('skips links by default and follows them loop-safely when asked', async () => {
    await mkdir(path.join(dir, 'real/sub'), { recursive: true });
    await writeFile(path.join(dir, 'real/sub/f.txt'), 'f');
    const outside = await mkdtemp(path.join(os.tmpdir(), 'bl-scan-out-'));
    try {
      await writeFile(path.join(outside, 'o.txt'), 'o');
      await symlink(outside, path.join(dir, 'ext'));
      await symlink(dir, path.join(dir, 'real/sub/loop')); // to the root: a loop
      await symlink(path.join(dir, 'real'), path.join(dir, 'real/sub/up')); // to an ancestor
      await symlink(path.join(dir, 'nowhere'), path.join(dir, 'broken'));
      await symlink(path.join(dir, 'real/sub/f.txt'), path.join(dir, 'filelink.txt'));

      const skipped = await collect(dir, 'skip');
      expect(files(skipped)).toEqual(['real/sub/f.txt']);
      expect(problems(skipped)).toEqual([]);

      const followed = await collect(dir, 'follow');
      expect(files(followed)).toEqual(['ext/o.txt', 'filelink.txt', 'real/sub/f.txt']);
      const p = problems(followed);
      expect(
        p
          .filter((x) => x.code === 'symlink-loop')
          .map((x) => x.relPath)
          .sort(),
      ).toEqual(['real/sub/loop', 'real/sub/up']);
      expect(p.filter((x) => x.code === 'broken-symlink').map((x) => x.relPath)).toEqual(['broken']);
      const linked = followed.flatMap((d) => (d.linkedDir ? [d.linkedDir] : []));
      expect(linked).toEqual([
        { relDir: 'ext', realPath: await import('node:fs/promises').then((f) => f.realpath(outside)) },
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reports permission denied for that subfolder only', async () => {
    await mkdir(path.join(dir, 'locked'));
    await mkdir(path.join(dir, 'open'));
    await writeFile(path.join(dir, 'locked/secret.txt'), 's');
    await writeFile(path.join(dir, 'open/ok.txt'), 'o');
    await chmod(path.join(dir, 'locked'), 0o000);
    // root reads any folder: then scan in a child process without that right.
    const scans = process.getuid?.() === 0 ? await scanUnprivileged(dir) : await collect(dir);
    expect(files(scans)).toEqual(['open/ok.txt']);
    expect(problems(scans)).toEqual([expect.objectContaining({ relPath: 'locked', code: 'permission-denied' })]);
  });

  it('throws a typed error when the root is missing or a file', async () => {
    await expect(collect(path.join(dir, 'nope'))).rejects.toMatchObject({
      name: 'RootUnavailableError',
      code: 'root-missing',
    });
    await writeFile(path.join(dir, 'file'), 'x');
    const e = await collect(path.join(dir, 'file')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RootUnavailableError);
    expect((e as RootUnavailableError).code).toBe('root-not-a-folder');
  });

  it('can start below the root (a folder that just appeared)', async () => {
    await mkdir(path.join(dir, 'x/y'), { recursive: true });
    await writeFile(path.join(dir, 'x/y/1'), '1');
    await writeFile(path.join(dir, 'top'), 't');
    const out: string[] = [];
    for await (const d of scanTree({ root: dir, filter, symlinks: 'skip', startRelDir: 'x' }))
      out.push(...d.files.map((f) => f.relPath));
    expect(out).toEqual(['x/y/1']);
  });
});
