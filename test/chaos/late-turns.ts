/**
 * What ran in each late turn of serve's loop: `node bin/run-ts.mjs test/chaos/late-turns.ts
 * <watch.jsonl> [<file.cpuprofile>] [minLateMs=50]`. The watch file is what serve wrote with
 * BLOCKLIFT_LOOP_WATCH (base/loop-watch.ts: each turn of its 10 ms watchdog that came late,
 * with the named sections that ran in it); the profile is serve's main-thread `--cpu-prof`
 * of the same run (the load section's CHAOS_PROF_DIR, finer with CHAOS_PROF_INTERVAL). Both
 * are on the monotonic clock, so each late turn gets the profile's samples of exactly its
 * gap: back-to-back tasks that profile-stalls.ts sees as one busy period come apart here.
 * Prints the late turns, latest first by lateness, with their sections and the functions
 * holding most of their samples (self time by function, then inclusive by function).
 */
import { readFileSync } from 'node:fs';
import { frameLabel, readProfile, type ProfileNode } from './cpu-profile';

interface Late {
  monoUs: number;
  gapMs: number;
  /** The process's CPU over the gap (newer watch files). */
  gapCpuMs?: number;
  /** The main thread alone (Linux schedstat; newer watch files): CPU, waiting for a core, blocked. */
  mainCpuMs?: number;
  mainWaitMs?: number;
  mainBlockedMs?: number;
  lateMs: number;
  unclaimedMs: number;
  sections: Array<{ name: string; ms: number; cpuMs?: number; n: number; max: number }>;
}

const [watchFile, profFile, minArg] = process.argv.slice(2);
if (!watchFile) {
  process.stderr.write('usage: late-turns.ts <watch.jsonl> [file.cpuprofile] [minLateMs]\n');
  process.exit(2);
}
const minLate = Number(minArg ?? 50);
const lates = readFileSync(watchFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Late)
  .filter((l) => l.lateMs >= minLate);

let sampleAt: number[] = [];
let sampleNode: number[] = [];
let byId = new Map<number, ProfileNode>();
let parent = new Map<number, number>();
if (profFile) {
  const read = readProfile(profFile);
  const p = read.p;
  ({ byId, parent } = read);
  let t = p.startTime;
  sampleAt = p.timeDeltas.map((d) => (t += d));
  sampleNode = p.samples;
}
const label = frameLabel;

/** Index of the first sample at or after `us`. */
function firstAt(us: number): number {
  let lo = 0;
  let hi = sampleAt.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sampleAt[mid]! < us) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const shown = Number(process.env.LATE_SHOWN ?? 15);
const frames = Number(process.env.LATE_FRAMES ?? 12);
process.stdout.write(`${lates.length} late turns of ${minLate} ms or more\n`);
for (const l of [...lates].sort((a, b) => b.lateMs - a.lateMs).slice(0, shown)) {
  const secs = l.sections
    .map((s) => `${s.name} ${s.ms}ms${s.cpuMs !== undefined ? ` (cpu ${s.cpuMs})` : ''}/${s.n}`)
    .join(', ');
  const main =
    l.mainCpuMs !== undefined
      ? `, main thread: cpu ${l.mainCpuMs}, waiting for a core ${l.mainWaitMs}, blocked ${l.mainBlockedMs}`
      : '';
  const cpu = (l.gapCpuMs !== undefined ? `, cpu ${l.gapCpuMs}` : '') + main;
  process.stdout.write(
    `\nlate ${l.lateMs} ms (gap ${l.gapMs}${cpu}, unclaimed ${l.unclaimedMs}) at ${l.monoUs}: ${secs}\n`,
  );
  if (!profFile) continue;
  const from = firstAt(l.monoUs - l.gapMs * 1000);
  const to = firstAt(l.monoUs);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (let i = from; i < to; i++) {
    const node = byId.get(sampleNode[i]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy++;
    self.set(label(node), (self.get(label(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let n: number | undefined = node.id; n !== undefined; n = parent.get(n)) {
      const lab = label(byId.get(n)!);
      if (seen.has(lab) || lab.startsWith('(root)')) continue;
      seen.add(lab);
      inclusive.set(lab, (inclusive.get(lab) ?? 0) + 1);
    }
  }
  process.stdout.write(`  ${to - from} samples, ${busy} busy\n`);
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, frames)
      .map(([lab, n]) => `    ${((100 * n) / Math.max(busy, 1)).toFixed(0).padStart(3)}%  ${lab}\n`)
      .join('');
  process.stdout.write(`  self:\n${top(self)}  inclusive:\n${top(inclusive)}`);
}
