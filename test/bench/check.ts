/**
 * The bench's results file and the one comparison of its figures with targets.ts, used by
 * `npm run bench -- --check` (run.ts) and `npm run bench:report` (report.ts). Pure: no I/O.
 */
import {
  FIGURES,
  SECTIONS,
  isContextKey,
  sectionOfKey,
  type FigureDef,
  type Section,
  type Target,
  type Unit,
} from './targets';

/** How busy the machine was: the 1-minute load average at a section's start and its range during it. */
export interface LoadRange {
  start: number;
  min: number;
  max: number;
}

export interface SectionRun {
  ran: boolean;
  /** Why it did not run (not selected, no browser, or `failed: <error>`). */
  reason?: string;
  started?: string;
  seconds?: number;
  load1?: LoadRange;
}

export interface RunContext {
  /** UTC, ISO 8601. */
  started: string;
  finished: string;
  /** A full run at full sizes: the only kind written under a dated name and quoted. */
  quotable: boolean;
  /** Why it is not quotable: BENCH_ONLY and scaled sizes, as `NAME=value`. */
  partial: string[];
  /** Short stable name of the machine (BENCH_MACHINE, else the CPU model and cores). */
  machine: string;
  cpu_model: string;
  cores: number;
  memory_gib: number;
  platform: string;
  node: string;
  commit: string;
  /** Tracked files changed against the commit when the run started. */
  dirty: boolean;
  dirty_files: string[];
  /** 1, 5 and 15-minute load averages just before the run. */
  load_before: number[];
  /** The 1-minute load average sampled every few seconds while it ran. */
  load_during: { min: number; max: number; mean: number; samples: number };
}

export interface ResultsFile {
  schema: 1;
  run: RunContext;
  sections: Partial<Record<Section, SectionRun>>;
  /** Figures by key (targets.ts); NaN is written as null. */
  figures: Record<string, number | null>;
}

export type Verdict = 'met' | 'missed' | 'missing' | 'not run' | 'none';

export interface CheckRow {
  key: string;
  section: Section | 'other';
  label: string;
  unit?: Unit;
  target?: Target;
  value?: number;
  verdict: Verdict;
  /** For `not run` and `missing`: why. */
  reason?: string;
}

export function meets(value: number, target: Target): boolean {
  if (!Number.isFinite(value)) return false;
  switch (target.direction) {
    case '<=':
      return value <= target.value;
    case '>=':
      return value >= target.value;
    case '<':
      return value < target.value;
  }
}

/**
 * Every figure of the results against `defs`, in section order: figures with a target are
 * met, missed, missing (the section ran without producing it) or not run (with the
 * section's reason); figures without one are listed as `none`. A not-run section lists only
 * its targets. Keys not in `defs` are listed as `none` under their section, or `other`.
 */
export function checkResults(
  results: Pick<ResultsFile, 'sections' | 'figures'>,
  defs: FigureDef[] = FIGURES,
): CheckRow[] {
  const rows: CheckRow[] = [];
  const known = new Set(defs.map((d) => d.key));
  const extra = Object.keys(results.figures).filter((k) => !known.has(k) && !isContextKey(k));
  for (const section of SECTIONS) {
    const run = results.sections[section] ?? { ran: false, reason: 'not in the results' };
    for (const d of defs.filter((x) => x.section === section)) {
      const base = { key: d.key, section, label: d.label, unit: d.unit, ...(d.target ? { target: d.target } : {}) };
      if (!run.ran) {
        if (d.target) rows.push({ ...base, verdict: 'not run', reason: run.reason ?? 'not run' });
        continue;
      }
      const value = results.figures[d.key];
      if (typeof value !== 'number' || Number.isNaN(value)) {
        if (d.target)
          rows.push({
            ...base,
            verdict: 'missing',
            reason: value === undefined ? 'the section did not produce it' : 'not a number',
          });
        continue;
      }
      rows.push({ ...base, value, verdict: d.target ? (meets(value, d.target) ? 'met' : 'missed') : 'none' });
    }
    for (const key of extra.filter((k) => sectionOfKey(k) === section)) rows.push(unlisted(key, section, results));
  }
  for (const key of extra.filter((k) => sectionOfKey(k) === undefined)) rows.push(unlisted(key, 'other', results));
  return rows;
}

function unlisted(key: string, section: Section | 'other', results: Pick<ResultsFile, 'figures'>): CheckRow {
  const v = results.figures[key];
  return { key, section, label: key, ...(typeof v === 'number' ? { value: v } : {}), verdict: 'none' };
}

export interface Summary {
  met: number;
  missed: number;
  missing: number;
  notRun: number;
  /** Every figure with a target was measured and met. */
  passed: boolean;
}

export function summarize(rows: CheckRow[]): Summary {
  const n = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const s = { met: n('met'), missed: n('missed'), missing: n('missing'), notRun: n('not run') };
  return { ...s, passed: s.missed + s.missing + s.notRun === 0 };
}

const MiB = 1024 * 1024;

/** A number for reading: three significant digits, whole numbers from 100 up, thousands separated. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  return String(Number(v.toPrecision(3)));
}

export function formatValue(v: number, unit?: Unit): string {
  switch (unit) {
    case undefined:
    case 'ratio':
    case 'count':
      return formatNumber(v);
    case 'bytes':
      return `${formatNumber(v / MiB)} MiB`;
    default:
      return `${formatNumber(v)} ${unit}`;
  }
}

const SYMBOL = { '<=': '≤', '>=': '≥', '<': '<' } as const;

export function formatTarget(row: Pick<CheckRow, 'target' | 'unit'>): string {
  return row.target ? `${SYMBOL[row.target.direction]} ${formatValue(row.target.value, row.unit)}` : 'none';
}

export function formatMeasured(row: CheckRow): string {
  return row.value === undefined ? '—' : formatValue(row.value, row.unit);
}

export function formatVerdict(row: CheckRow): string {
  switch (row.verdict) {
    case 'met':
      return 'yes';
    case 'missed':
      return 'no';
    case 'missing':
      return `no: missing (${row.reason})`;
    case 'not run':
      return `not run: ${row.reason}`;
    case 'none':
      return '–';
  }
}

/** The plain-text table of `--check`: section, figure, measured, target, met. */
export function textTable(rows: CheckRow[]): string {
  const cells = [
    ['section', 'figure', 'measured', 'target', 'met'],
    ...rows.map((r) => [r.section, r.key, formatMeasured(r), formatTarget(r), formatVerdict(r)]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** One line for the end of a check: how many targets were met. */
export function summaryLine(s: Summary): string {
  const total = s.met + s.missed + s.missing + s.notRun;
  const parts = [`${s.met} of ${total} targets met`];
  if (s.missed) parts.push(`${s.missed} missed`);
  if (s.missing) parts.push(`${s.missing} missing`);
  if (s.notRun) parts.push(`${s.notRun} not run`);
  return parts.join(', ');
}

/**
 * A short stable name for the machine, for results file names: BENCH_MACHINE when given,
 * else the CPU model's words (without (R), CPU, Processor, clock) and the core count, such
 * as `amd-epyc-2c` or `intel-xeon-platinum-8375c-2c`. Host names are not used: in
 * containers and VMs they are random and change with every start.
 */
export function machineName(cpuModel: string, cores: number, override?: string): string {
  const clean = (s: string) =>
    s
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  if (override && clean(override).length) return clean(override).join('-');
  const words = clean(
    cpuModel
      .replace(/\((r|tm)\)/gi, ' ')
      .replace(/@.*$/, ' ')
      .replace(/\b(cpu|processor|\d+-core|[\d.]+\s*ghz)\b/gi, ' '),
  ).slice(0, 4);
  return [...(words.length ? words : ['cpu']), `${cores}c`].join('-');
}

/** `<YYYY-MM-DD>-<machine>.json`: the name of a quotable results file. */
export const RESULTS_NAME = /^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.json$/;
