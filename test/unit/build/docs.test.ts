import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** What README.md promises about the code's folders stays true (issue 22: docs true to the code). */
const ROOT = path.resolve(__dirname, '../../..');
const folders = readdirSync(path.join(ROOT, 'src-main'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe('README.md and the folders of src-main', () => {
  it('every folder of src-main has a README', () => {
    expect(folders.filter((f) => !existsSync(path.join(ROOT, 'src-main', f, 'README.md')))).toEqual([]);
  });

  it('the architecture list names every folder of src-main, and no folder that is not there', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^src-main\/(\w+)\s/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...folders].sort());
  });
});
