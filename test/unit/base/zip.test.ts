import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeZip } from '../../../src-main/base/zip';

const ROOT = path.resolve(__dirname, '../../..');
let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-zip-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Offsets of a signature in a buffer (a ZIP record's first four bytes, little-endian). */
function has(buf: Buffer, signature: number): boolean {
  const sig = Buffer.alloc(4);
  sig.writeUInt32LE(signature);
  return buf.includes(sig);
}

describe('writeZip', () => {
  it('writes an archive unzip tests and extracts byte for byte: deflated, stored, empty and UTF-8 names', async () => {
    const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251));
    const mtime = new Date();
    const entries = [
      { name: 'a.txt', data: Buffer.from('hello '.repeat(1000)), mtime },
      { name: 'dir/ünïcode.bin', data: random, mtime },
      { name: 'empty', data: Buffer.alloc(0), mtime },
    ];
    const file = path.join(dir, 'x.zip');
    const { bytes } = await writeZip(file, entries);
    expect(bytes).toBe(statSync(file).size);
    expect(execFileSync('unzip', ['-tq', file], { encoding: 'utf8' })).toContain('No errors');
    for (const e of entries) expect(execFileSync('unzip', ['-p', file, e.name]).equals(e.data), e.name).toBe(true);
    expect(execFileSync('unzip', ['-l', file], { encoding: 'utf8' })).toContain('dir/ünïcode.bin');
  });

  it('writes ZIP64 records when told to (past 4 GiB or 65,535 entries they are needed), and unzip reads them', async () => {
    const text = Buffer.from('zip64 '.repeat(500));
    const mtime = new Date();
    const plain = path.join(dir, 'plain.zip');
    const forced = path.join(dir, 'forced.zip');
    await writeZip(plain, [{ name: 't.txt', data: text, mtime }]);
    await writeZip(forced, [{ name: 't.txt', data: text, mtime }], { forceZip64: true });
    // The ZIP64 end of central directory record (0x06064b50) and its locator (0x07064b50).
    expect(has(readFileSync(plain), 0x06064b50)).toBe(false);
    expect(has(readFileSync(forced), 0x06064b50)).toBe(true);
    expect(has(readFileSync(forced), 0x07064b50)).toBe(true);
    expect(execFileSync('unzip', ['-tq', forced], { encoding: 'utf8' })).toContain('No errors');
    expect(execFileSync('unzip', ['-p', forced, 't.txt']).equals(text)).toBe(true);
  });

  it('streams a 512 MiB entry from its file without reading it whole', (ctx) => {
    // A sparse file: 512 MiB of zeros that takes no disk. The writer runs in a child process,
    // whose peak RSS says whether the entry was held in memory (it would add 512 MiB to the
    // child's ≈ 110 MiB).
    const big = path.join(dir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 512 * 1024 ** 2);
    const out = path.join(dir, 'big.zip');
    const script = path.join(dir, 'child.ts');
    writeFileSync(
      script,
      `import { writeZip } from ${JSON.stringify(path.join(ROOT, 'src-main/base/zip.ts'))};\n` +
        `import { ownPeakRssBytes } from ${JSON.stringify(path.join(ROOT, 'test/helpers/peak-rss.ts'))};\n` +
        `await writeZip(process.argv[2], [{ name: 'big.bin', path: process.argv[3], mtime: new Date() }]);\n` +
        `process.stdout.write(String(ownPeakRssBytes()));\n`,
    );
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/run-ts.mjs'), script, out, big], {
      encoding: 'utf8',
      cwd: ROOT,
    });
    if (r.status !== 0) throw new Error(r.stderr);
    const peakMiB = Number(r.stdout) / 1024 ** 2;
    ctx.annotate(`peak RSS of the child: ${peakMiB.toFixed(0)} MiB`);
    expect(peakMiB).toBeLessThan(256);
    const listing = execFileSync('zipinfo', [out], { encoding: 'utf8' });
    expect(listing).toMatch(/536870912 [^\n]*defN[^\n]*big\.bin/);
    expect(execFileSync('unzip', ['-tq', out], { encoding: 'utf8' })).toContain('No errors');
  }, 180_000);
});
