import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkNewRoot } from '../../../src-main/sync/root-guard';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-guard-'));
  await mkdir(path.join(dir, 'a/b'), { recursive: true });
  await mkdir(path.join(dir, 'data'), { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('checkNewRoot', () => {
  it('accepts a plain folder and returns its real path', async () => {
    const r = await checkNewRoot(path.join(dir, 'a', '.', 'b'), [], path.join(dir, 'data'));
    expect(r.root.endsWith(`${path.sep}a${path.sep}b`)).toBe(true);
    expect(r.excludedDirs).toEqual([]);
  });
  it.each([
    ['a/b', ['a'], 'root-inside-root', /inside the watched folder/],
    ['a', ['a/b'], 'root-contains-root', /contains the watched folder/],
    ['data/x', [], 'root-inside-data-folder', /data folder/],
    ['data', [], 'root-is-data-folder', /data folder/],
    ['missing', [], 'root-missing', /does not exist/],
    ['file.txt', [], 'root-not-a-folder', /not a folder/],
  ])('refuses %s (existing roots %j) with %s', async (folder, roots, code, msg) => {
    await mkdir(path.join(dir, 'data/x'), { recursive: true });
    await writeFile(path.join(dir, 'file.txt'), 'x');
    const err = await checkNewRoot(
      path.join(dir, folder),
      roots.map((r) => path.join(dir, r)),
      path.join(dir, 'data'),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'RootRefusedError', code });
    expect((err as Error).message).toMatch(msg);
  });
  it('leaves out the data folder when it lies inside the root', async () => {
    const r = await checkNewRoot(dir, [], path.join(dir, 'data'));
    expect(r.excludedDirs).toEqual(['data']);
  });
  it('the same root again is not a conflict', async () => {
    await expect(checkNewRoot(path.join(dir, 'a'), [path.join(dir, 'a')], undefined)).resolves.toBeDefined();
  });
});
