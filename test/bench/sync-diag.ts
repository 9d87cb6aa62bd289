/**
 * Where the sync benchmark child's RSS goes (sync-child.ts with BENCH_SYNC_DIAG=1, or
 * sync-diag-child.ts): one JSON line each on stderr at its points (init, cold scan done,
 * cold root closed, END = the point `rssMiB` is taken): RssAnon/RssFile from
 * /proc/self/status, process.memoryUsage() and V8's spaces. DIAG_SMAPS=1 adds smaps_rollup,
 * DIAG_MAPS=1 the mappings over 4 MiB (glibc's thread arenas are the 64 MiB-aligned
 * anonymous ones), DIAG_GC=1 (with node --expose-gc) a snapshot after a full GC, DIAG_PROF=1
 * the rescan's allocations by call site (sampling heap profiler, garbage included).
 * Loaded only when asked for, so the measured runs carry none of it.
 */
import { readFileSync } from 'node:fs';
import type { Session } from 'node:inspector/promises';
import v8 from 'node:v8';

const M = (b: number) => Math.round((b / 1048576) * 10) / 10;
function snap(label: string): Record<string, unknown> {
  const mu = process.memoryUsage();
  const st = readFileSync('/proc/self/status', 'utf8');
  const g = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(st)?.[1] ?? -1) / 1024;
  const sp: Record<string, number> = {};
  for (const s of v8.getHeapSpaceStatistics()) sp[s.space_name.replace('_space', '')] = M(s.space_size);
  const threads = g('Threads') * 1024;
  return {
    label,
    rss: M(mu.rss),
    anon: Math.round(g('RssAnon') * 10) / 10,
    file: Math.round(g('RssFile') * 10) / 10,
    heapT: M(mu.heapTotal),
    heapU: M(mu.heapUsed),
    ext: M(mu.external),
    ab: M(mu.arrayBuffers),
    threads,
    sp,
  };
}
export interface SyncDiag {
  /** A snapshot labelled `label`. */
  at(label: string): void;
  /** Before the rescan: starts the allocation sampling (DIAG_PROF). */
  beforeRescan(): Promise<void>;
  /** At the measured point: the END snapshot and what DIAG_* ask for, then every line to stderr. */
  atEnd(): Promise<void>;
}

export function startSyncDiag(): SyncDiag {
  const out: Record<string, unknown>[] = [];
  let sess: Session | undefined;
  return {
    at: (label) => void out.push(snap(label)),
    async beforeRescan() {
      // Only with DIAG_PROF: an inspector session is no part of what is measured otherwise.
      if (!process.env.DIAG_PROF) return;
      sess = new (await import('node:inspector/promises')).Session();
      sess.connect();
      await sess.post('HeapProfiler.startSampling', {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      } as never);
    },
    async atEnd() {
      out.push(snap('END'));
      if (sess) {
        const { profile } = (await sess.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
        interface Node {
          callFrame: { functionName: string; url: string; lineNumber: number };
          selfSize: number;
          children: Node[];
        }
        const agg = new Map<string, number>();
        const walk = (n: Node, stack: string[]) => {
          const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
          const st = [...stack, k];
          if (n.selfSize) {
            const key = st.slice(-3).join(' < ');
            agg.set(key, (agg.get(key) ?? 0) + n.selfSize);
          }
          for (const c of n.children) walk(c, st);
        };
        walk(profile.head, []);
        const tot = [...agg.values()].reduce((a, b) => a + b, 0);
        out.push({ total: M(tot) });
        for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 25)) out.push({ mib: M(v), k });
      }
      if (process.env.DIAG_SMAPS)
        out.push({
          smaps: readFileSync('/proc/self/smaps_rollup', 'utf8')
            .replace(/\s+kB/g, '')
            .split('\n')
            .slice(1, 12)
            .join(' '),
        });
      if (process.env.DIAG_MAPS) {
        // big anon mappings by size (RSS)
        const sm = readFileSync('/proc/self/smaps', 'utf8').split('\n');
        const rows: string[] = [];
        let head = '';
        for (const l of sm) {
          if (/^[0-9a-f]+-[0-9a-f]+ /.test(l)) head = l;
          else if (l.startsWith('Rss:')) {
            const kb = Number(l.split(/\s+/)[1]);
            if (kb > 4096)
              rows.push(`${kb >> 10}M ${head.split(/\s+/).slice(0, 2).join(' ')} ${head.split(/\s+/)[5] ?? ''}`);
          }
        }
        out.push({ maps: rows.join(' | ') });
      }
      if (process.env.DIAG_GC && (globalThis as { gc?: () => void }).gc) {
        (globalThis as { gc: () => void }).gc();
        out.push(snap('afterGC'));
      }

      for (const o of out) process.stderr.write(JSON.stringify(o) + '\n');
    },
  };
}
