import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, staleReason } from '../../../bin/build-lib.mjs';
import { APP_VERSION } from '../../../src-main/shared/version';

describe('the build in dist/', () => {
  it('is current against the sources (npm test builds what is stale before the tests)', () => {
    expect(staleReason('main'), 'run npm run build').toBeNull();
    expect(staleReason('renderer'), 'run npm run build').toBeNull();
  });

  it('answers blocklift --version from the compiled bundle, with the package version', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bin/blocklift.mjs'), '--version'], {
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(APP_VERSION);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(APP_VERSION).toBe(pkg.version);
  });
});

describe('staleReason', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A project copy whose stamp says both parts were built at `startedAt` from the files present. */
  function project(startedAt: number) {
    root = mkdtempSync(path.join(os.tmpdir(), 'bl-build-'));
    const files = ['src-main/cli/main.ts', 'src-renderer/main.tsx', 'src-main/shared/contract.ts', 'dist/cli.mjs'];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), '');
      utimesSync(path.join(root, f), new Date(startedAt - 5000), new Date(startedAt - 5000));
    }
    mkdirSync(path.join(root, 'dist/renderer'), { recursive: true });
    writeFileSync(path.join(root, 'dist/renderer/index.html'), '');
    const stamp = {
      main: { startedAt, inputs: ['src-main/cli/main.ts', 'src-main/shared/contract.ts'], outputs: ['dist/cli.mjs'] },
      renderer: {
        startedAt,
        inputs: ['src-renderer/main.tsx', 'src-main/shared/contract.ts'],
        outputs: ['dist/renderer/index.html'],
      },
    };
    writeFileSync(path.join(root, 'dist/build-stamp.json'), JSON.stringify(stamp));
  }

  const touch = (f: string, at: number) => utimesSync(path.join(root, f), new Date(at), new Date(at));

  it('is null for a build newer than every input', () => {
    project(Date.now());
    expect(staleReason('main', root)).toBeNull();
    expect(staleReason('renderer', root)).toBeNull();
  });

  it('names an input changed after the build started', () => {
    const t = Date.now();
    project(t);
    touch('src-main/shared/contract.ts', t + 1000);
    expect(staleReason('main', root)).toBe('src-main/shared/contract.ts changed');
    expect(staleReason('renderer', root)).toBe('src-main/shared/contract.ts changed');
  });

  it('names a removed input, a missing output, a new renderer file and a missing stamp', () => {
    project(Date.now());
    rmSync(path.join(root, 'src-main/cli/main.ts'));
    expect(staleReason('main', root)).toBe('src-main/cli/main.ts was removed');
    rmSync(path.join(root, 'dist/renderer/index.html'));
    expect(staleReason('renderer', root)).toBe('dist/renderer/index.html is missing');
    writeFileSync(path.join(root, 'dist/renderer/index.html'), '');
    writeFileSync(path.join(root, 'src-renderer/new.tsx'), '');
    expect(staleReason('renderer', root)).toBe('src-renderer/new.tsx is new');
    rmSync(path.join(root, 'dist/build-stamp.json'));
    expect(staleReason('main', root)).toBe('dist has no main build');
  });
});
