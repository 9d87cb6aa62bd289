/**
 * What each change to the emulator's chunk path saved, measured the bench's way:
 * `node bin/run-ts.mjs test/bench/emulator-steps.ts <label>=<commit> … [--rounds N]`.
 * Each commit is exported (git archive) into a temporary folder that uses this checkout's
 * node_modules, built (dist/), and `test/bench/emulator-cpu.ts` (1 GiB, 4 MiB blocks and
 * chunks, 2 at a time, a minimal node:http client; the emulator's CPU from /proc) is run
 * from each in turn, round after round, so the machine's load falls alike on all. Prints
 * one JSON line per run and writes the table between `<!-- emulator-steps:begin -->` and
 * `<!-- emulator-steps:end -->` of src-main/emulator/README.md (with `--readme`). Linux
 * only; not part of `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = path.join(ROOT, 'src-main/emulator/README.md');
const BEGIN = '<!-- emulator-steps:begin -->';
const END = '<!-- emulator-steps:end -->';

interface Run {
  label: string;
  commit: string;
  round: number;
  cpuSecondsPerGiB: number;
  requestThreadCpuSecondsPerGiB: number;
  mibPerSecond: number;
  load1Before: number;
  load1After: number;
}

const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '2' }, readme: { type: 'boolean', default: false } },
});
const steps = positionals.map((p) => {
  const [label, commit] = p.split('=');
  if (!label || !commit) throw new Error(`expected <label>=<commit>, got ${p}`);
  return {
    label,
    commit: execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim(),
  };
});
if (steps.length === 0) throw new Error('usage: emulator-steps.ts <label>=<commit> … [--rounds N] [--readme]');

const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-emu-steps-'));
const runs: Run[] = [];
const started = new Date().toISOString();
try {
  const dirs = new Map<string, string>();
  for (const s of steps) {
    const dir = path.join(tmp, s.label);
    execFileSync('sh', ['-c', `mkdir -p "${dir}" && git archive ${s.commit} | tar -x -C "${dir}"`], { cwd: ROOT });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const b = spawnSync(process.execPath, ['bin/build.mjs', '--if-stale'], { cwd: dir, stdio: 'ignore' });
    if (b.status !== 0) throw new Error(`building ${s.label} (${s.commit}) failed`);
    dirs.set(s.label, dir);
  }
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const s of steps) {
      const before = load1();
      const r = spawnSync(process.execPath, ['bin/run-ts.mjs', 'test/bench/emulator-cpu.ts'], {
        cwd: dirs.get(s.label),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (r.status !== 0) throw new Error(`emulator-cpu.ts of ${s.label} exited ${r.status}`);
      const m = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Run;
      const run: Run = {
        label: s.label,
        commit: s.commit,
        round,
        cpuSecondsPerGiB: m.cpuSecondsPerGiB,
        requestThreadCpuSecondsPerGiB: m.requestThreadCpuSecondsPerGiB,
        mibPerSecond: m.mibPerSecond,
        load1Before: before,
        load1After: load1(),
      };
      runs.push(run);
      process.stdout.write(`${JSON.stringify(run)}\n`);
    }
  }
} finally {
  await rm(tmp, { recursive: true, force: true });
}

if (values.readme) {
  const lines = [
    BEGIN,
    `Run ${started.slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}, by \`node bin/run-ts.mjs test/bench/emulator-steps.ts ${positionals.join(' ')} --rounds ${values.rounds} --readme\` (each step is \`test/bench/emulator-cpu.ts\` at that commit; CPU-s per GiB of the whole emulator process and of its request thread, user + system).`,
    '',
    '| step | commit | round | CPU-s/GiB | request thread CPU-s/GiB | MiB/s | load 1 min before → after |',
    '|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.label} | \`${r.commit}\` | ${r.round} | ${r.cpuSecondsPerGiB.toFixed(2)} | ${r.requestThreadCpuSecondsPerGiB.toFixed(2)} | ${r.mibPerSecond} | ${r.load1Before.toFixed(2)} → ${r.load1After.toFixed(2)} |`,
    ),
    END,
  ];
  const text = readFileSync(README, 'utf8');
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a >= 0 && b > a) writeFileSync(README, text.slice(0, a) + lines.join('\n') + text.slice(b + END.length));
  else process.stderr.write(`no ${BEGIN} block in ${README}; table not written\n`);
}
