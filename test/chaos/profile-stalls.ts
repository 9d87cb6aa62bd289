/**
 * The stalls in a V8 CPU profile (`--cpu-prof`; the load section writes serve's with
 * CHAOS_PROF_DIR): `node bin/run-ts.mjs test/chaos/profile-stalls.ts <file.cpuprofile>
 * [minMs=100]`. A stall is a run of consecutive samples that are not `(idle)`, lasting at
 * least minMs: the thread did not come back to its event loop. For each, longest first, it
 * prints its length and the functions holding most of it (inclusive share, file:line).
 */
import { frameLabel, readProfile } from './cpu-profile';

const [file, minArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-stalls.ts <file.cpuprofile> [minMs]\n');
  process.exit(2);
}
const minMs = Number(minArg ?? 100);
const { p, byId, parent } = readProfile(file);
const label = frameLabel;

interface Stall {
  startMs: number;
  ms: number;
  samples: number[];
}
const stalls: Stall[] = [];
let t = p.startTime;
let cur: Stall | undefined;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  const node = byId.get(p.samples[i]!)!;
  const idle = node.callFrame.functionName === '(idle)';
  if (!idle) {
    cur ??= { startMs: (t - p.startTime) / 1000, ms: 0, samples: [] };
    cur.samples.push(p.samples[i]!);
    cur.ms = (t - p.startTime) / 1000 - cur.startMs;
  } else if (cur) {
    if (cur.ms >= minMs) stalls.push(cur);
    cur = undefined;
  }
}
if (cur && cur.ms >= minMs) stalls.push(cur);
// STALLS_BY=samples: by samples taken (about the CPU the thread had; on a crowded machine a
// stall's wall time is mostly waiting for a core).
stalls.sort((a, b) => (process.env.STALLS_BY === 'samples' ? b.samples.length - a.samples.length : b.ms - a.ms));
process.stdout.write(`${file}: ${stalls.length} stalls of ${minMs} ms or more\n`);
for (const s of stalls.slice(0, Number(process.env.STALLS_SHOWN ?? 10))) {
  const inclusive = new Map<string, number>();
  for (const id of s.samples) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const l = label(byId.get(n)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
    }
  }
  const top = [...inclusive.entries()]
    .filter(([l]) => !l.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.STALL_FRAMES ?? 14));
  process.stdout.write(`\n${s.ms.toFixed(0)} ms at ${(s.startMs / 1000).toFixed(1)} s (${s.samples.length} samples)\n`);
  for (const [l, n] of top) process.stdout.write(`  ${((100 * n) / s.samples.length).toFixed(0).padStart(3)}%  ${l}\n`);
}
