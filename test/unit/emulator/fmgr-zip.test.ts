import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeZip, ZipLimitError } from '../../../src-main/emulator/fmgr-zip';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-zip-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function source(name: string, data: Buffer) {
  const p = path.join(dir, `src-${Math.random().toString(36).slice(2)}`);
  await writeFile(p, data);
  return { name, path: p, size: data.length, mtimeMs: Date.UTC(2024, 4, 6, 12, 30, 10) };
}

describe('writeZip', () => {
  it('writes an archive that unzip tests clean and extracts byte for byte', async () => {
    const text = Buffer.from('hello zip '.repeat(1000)); // compresses: deflated entry
    const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251)); // barely compresses
    const empty = Buffer.alloc(0);
    const entries = [
      await source('a/hello.txt', text),
      await source('b/bytes.bin', random),
      await source('empty', empty),
      await source('ünï/名前.txt', Buffer.from('utf8 name')),
    ];
    const out = path.join(dir, 'out.zip');
    await writeZip(out, entries);
    expect(execFileSync('unzip', ['-tq', out]).toString()).toMatch(/No errors detected/);
    const listing = execFileSync('zipinfo', ['-1', out]).toString().trim().split('\n');
    expect(listing).toEqual(['a/hello.txt', 'b/bytes.bin', 'empty', 'ünï/名前.txt']);
    expect(execFileSync('unzip', ['-p', out, 'a/hello.txt']).equals(text)).toBe(true);
    expect(execFileSync('unzip', ['-p', out, 'b/bytes.bin']).equals(random)).toBe(true);
    expect((await stat(out)).size).toBeLessThan(text.length); // the text entry was deflated
  });

  it('stores an incompressible entry and deflates a compressible one', async () => {
    const noise = randomBytes(600 * 1024);
    const text = Buffer.from('abc '.repeat(200_000));
    const out = path.join(dir, 'mixed.zip');
    await writeZip(out, [await source('noise.bin', noise), await source('text.txt', text)]);
    const listing = execFileSync('zipinfo', [out]).toString();
    expect(listing).toMatch(/stor[^\n]*noise\.bin/);
    expect(listing).toMatch(/defN[^\n]*text\.txt/);
    expect(execFileSync('unzip', ['-p', out, 'noise.bin'], { maxBuffer: 2 * 1024 * 1024 }).equals(noise)).toBe(true);
  });

  it('writes an empty archive that unzip accepts', async () => {
    const out = path.join(dir, 'empty.zip');
    await writeZip(out, []);
    expect((await stat(out)).size).toBe(22);
    expect(() => execFileSync('zipinfo', [out], { stdio: 'pipe' })).toThrow(); // zipinfo exits 1 on "empty zipfile"
  });

  it('refuses more input than the cap before writing anything', async () => {
    const out = path.join(dir, 'big.zip');
    await expect(
      writeZip(out, [{ name: 'x', path: '/nonexistent', size: 2 * 1024 ** 3, mtimeMs: 0 }]),
    ).rejects.toBeInstanceOf(ZipLimitError);
  });

  it('encodes DOS date and time, clamping before 1980', async () => {
    // The local header's "last mod file time" and "date" fields (offsets 10 and 12).
    const dosOf = async (mtimeMs: number) => {
      const out = path.join(dir, `t-${mtimeMs}.zip`);
      await writeZip(out, [{ ...(await source('t', Buffer.from('t'))), mtimeMs }]);
      const b = await readFile(out);
      return { time: b.readUInt16LE(10), date: b.readUInt16LE(12) };
    };
    const d = new Date(2024, 4, 6, 12, 30, 10).getTime();
    expect(await dosOf(d)).toEqual({ time: (12 << 11) | (30 << 5) | 5, date: (44 << 9) | (5 << 5) | 6 });
    expect(await dosOf(0)).toEqual({ time: 0, date: (1 << 5) | 1 });
  });
});
