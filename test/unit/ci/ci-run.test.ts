/**
 * `.ci/run` always ends with the plain "N passed, N failed" line and exits with npm's status,
 * red runs included. `npm` is the one stand-in here: a script first on the PATH that prints
 * what a vitest run prints (the real `npm test` would run this very suite again).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const CI_RUN = path.resolve(__dirname, '../../../.ci/run');
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs .ci/run with an `npm` that answers `ci` with `ciExit` and `test` with `testOut`/`testExit`. */
function ciRun(opts: { ciExit?: number; testOut?: string; testExit?: number }) {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-ci-'));
  const npm = path.join(dir, 'npm');
  writeFileSync(path.join(dir, 'test-output'), `${opts.testOut ?? ''}\n`);
  writeFileSync(
    npm,
    [
      '#!/usr/bin/env bash',
      `if [ "$1" = ci ]; then echo "added 1 package"; exit ${opts.ciExit ?? 0}; fi`,
      `cat ${JSON.stringify(path.join(dir, 'test-output'))}`,
      `exit ${opts.testExit ?? 0}`,
    ].join('\n'),
  );
  chmodSync(npm, 0o755);
  const r = spawnSync('bash', [CI_RUN], {
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
    encoding: 'utf8',
    timeout: 20_000,
  });
  const lines = r.stdout.trim().split('\n');
  return { status: r.status, last: lines[lines.length - 1], stdout: r.stdout };
}

describe('.ci/run', () => {
  it('a red vitest run: "N passed, 1 failed" and a non-zero exit', () => {
    const r = ciRun({
      testOut: ' Test Files  1 failed | 150 passed (151)\n      Tests  \u001b[31m1 failed\u001b[39m | 961 passed (962)',
      testExit: 1,
    });
    expect(r.last).toBe('961 passed, 1 failed');
    expect(r.status).toBe(1);
  });

  it('a green run: its count, skipped ones too, and exit 0', () => {
    const r = ciRun({ testOut: '      Tests  960 passed | 2 skipped (962)' });
    expect(r.last).toBe('960 passed, 0 failed, 2 skipped');
    expect(r.status).toBe(0);
  });

  it('npm test failing before vitest (type-check, lint): "0 passed, 1 failed", with npm test\'s status', () => {
    const r = ciRun({ testOut: 'error TS2322: oops', testExit: 2 });
    expect(r.last).toBe('0 passed, 1 failed');
    expect(r.stdout).toMatch(/npm failed \(exit 2\) before vitest counted a failure/);
    expect(r.status).toBe(2);
  });

  it('npm ci failing: the line is still printed and npm test is not run', () => {
    const r = ciRun({ ciExit: 1, testOut: '      Tests  5 passed (5)' });
    expect(r.last).toBe('0 passed, 1 failed');
    expect(r.stdout).not.toMatch(/5 passed \(5\)/);
    expect(r.status).toBe(1);
  });
});
