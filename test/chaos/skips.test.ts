import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO } from './context';
import { canMountTmpfs } from './disk';
import type { ChaosReport } from './report';
import { inCi } from './suite';
import { withoutCapabilities } from '../helpers/unprivileged';

/**
 * A chaos section that cannot run is reported SKIPPED with its reason (never passed), and
 * with CI set a skip of a section this machine can run fails the run. Through the real
 * `npm run test:chaos` entry (run.ts) and the real disk section: run without CAP_SYS_ADMIN
 * when the tests run as root (test/helpers/unprivileged.ts), its tmpfs mount is refused as on a
 * machine without the right.
 */
interface Run {
  code: number;
  stdout: string;
  report: ChaosReport;
  md: string;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-chaos-skips-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function chaos(args: string[], o: { ci: boolean; cannotMount?: boolean }): Promise<Run> {
  const out = path.join(dir, 'report');
  const argv = ['bin/run-ts.mjs', 'test/chaos/run.ts', ...args, '--report', out];
  const [command, commandArgs] = o.cannotMount
    ? withoutCapabilities(['sys_admin'], process.execPath, argv)
    : [process.execPath, argv];
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, CI: o.ci ? 'true' : undefined };
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(command, commandArgs, { cwd: REPO, env, timeout: 60_000 }, (e, stdout, stderr) => {
      const c = (e as { code?: unknown } | null)?.code;
      resolve({ code: typeof c === 'number' ? c : e ? -1 : 0, stdout: stdout + stderr });
    });
  });
  const report = JSON.parse(await readFile(path.join(out, 'report.json'), 'utf8')) as ChaosReport;
  return { code, stdout, report, md: await readFile(path.join(out, 'report.md'), 'utf8') };
}

describe('chaos sections that cannot run', () => {
  it('CI is read from the environment as CI services set it', () => {
    expect([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }].map((e) => inCi(e))).toEqual([false, false, false, false]);
    expect([{ CI: 'true' }, { CI: '1' }, { CI: 'woodpecker' }].map((e) => inCi(e))).toEqual([true, true, true]);
  });

  it('a disk section without the right to mount a tmpfs is SKIPPED with its reason in report.json and report.md, not passed', async () => {
    const r = await chaos(['--only', 'disk'], { ci: false, cannotMount: true });
    expect(r.code, r.stdout).toBe(0);
    const reason = /^a tmpfs could not be mounted \(.+\): the section needs root or CAP_SYS_ADMIN$/;
    expect(r.report.sections).toEqual([
      expect.objectContaining({ name: 'disk', outcome: 'skipped', skipReason: expect.stringMatching(reason) }),
    ]);
    expect(r.report.skipped).toEqual([expect.stringMatching(/^disk: a tmpfs could not be mounted/)]);
    expect(r.report.failures).toEqual([]);
    expect(r.md).toMatch(/^# Chaos run \(short form\): PASSED, 1 section SKIPPED \(disk\)$/m);
    expect(r.md).toMatch(/^### disk: SKIPPED \(.+\)\n\n- \*\*skipped:\*\* a tmpfs could not be mounted/m);
    expect(r.md).not.toMatch(/disk: ok/);
    expect(r.stdout).toContain(r.md);
  });

  it('with CI set, a skip stands where the machine cannot mount a tmpfs either, and says so', async () => {
    const r = await chaos(['--only', 'disk'], { ci: true, cannotMount: true });
    expect(r.code, r.stdout).toBe(0);
    const [s] = r.report.sections;
    expect(s).toMatchObject({ outcome: 'skipped', failures: [] });
    expect(s!.notes).toEqual([
      expect.stringMatching(
        /^CI: skip accepted, this machine cannot run the section \(uid \d+ could not mount a tmpfs: /,
      ),
    ]);
  });

  it('with CI set, a skipped disk section fails the run where this machine can mount a tmpfs, saying what was expected', async (t) => {
    const machine = await canMountTmpfs();
    if (!machine.can) t.skip(`needs a machine that can mount a tmpfs (root or CAP_SYS_ADMIN): ${machine.detail}`);
    const skipped = await chaos(['--only', 'disk', '--skip', 'disk'], { ci: false });
    expect(skipped.code, skipped.stdout).toBe(0);
    expect(skipped.report.sections[0]).toMatchObject({
      outcome: 'skipped',
      skipReason: 'asked to skip it (--skip or CHAOS_SKIP)',
    });

    const r = await chaos(['--only', 'disk', '--skip', 'disk'], { ci: true });
    expect(r.code, r.stdout).toBe(1);
    expect(r.report.ok).toBe(false);
    expect(r.report.sections[0]).toMatchObject({ name: 'disk', outcome: 'failed' });
    expect(r.report.failures).toEqual([
      expect.stringMatching(
        /^\[disk\] skipped in CI although this machine can run it \(uid \d+ mounted a 1 MiB tmpfs \(and unmounted it\)\); in CI every section the machine can run must run; reason given: asked to skip it/,
      ),
    ]);
    expect(r.md).toMatch(/^# Chaos run \(short form\): FAILED/m);
  });
});
