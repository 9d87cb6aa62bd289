import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a chaos run measured. Every counter is summed over the sections; `failures` lists
 * each broken claim with enough to reproduce it (section, seed, what was seen). A run is
 * green when `failures` is empty, `lost` is 0 and `secretsFound` is 0. A section that could
 * not run is `skipped` with its reason, listed apart and never counted as passed; with `CI`
 * set, a skip of a section this machine can run is a failure (suite.ts).
 */
export interface ChaosReport {
  form: 'short' | 'long';
  seed: number;
  startedAt: string;
  durationMs: number;
  /** Faults met by the client, by kind ("error 503", "reset", "ctx-expiry", "emulator SIGKILL", "hostile truncated-json"…). */
  faultsInjected: Record<string, number>;
  /** Retries the engine logged, by cause ("bput 503 → retry"…). */
  retriesByCause: Record<string, number>;
  /** Server processes SIGKILLed mid-upload that the client got past. */
  crashesSurvived: number;
  /** Fuzzed and hostile inputs sent. */
  inputsTried: number;
  filesVerified: number;
  bytesVerified: number;
  /** Files whose upload ended neither verified in the store nor refused with a clear reason. */
  lost: number;
  secretsFound: number;
  sections: SectionResult[];
  failures: string[];
  /** Sections that could not run here, each as "name: why" (also in its `SectionResult`). */
  skipped: string[];
  ok: boolean;
}

export interface SectionResult {
  name: string;
  /** `skipped`: the section could not run on this machine and proved nothing; `skipReason` says why. */
  outcome: 'passed' | 'failed' | 'skipped';
  skipReason?: string;
  durationMs: number;
  notes: string[];
  failures: string[];
}

/**
 * Thrown by a section that cannot run on this machine (it lacks a right or a program the
 * section needs): the section's outcome is `skipped` with `reason`, never a pass.
 */
export class SectionSkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SectionSkipped';
  }
}

/**
 * A section's own probe of whether this machine can run it (disk: mount a tiny tmpfs):
 * `can` true when it can, `detail` what the probe did or met.
 */
export interface MachineCheck {
  can: boolean;
  detail: string;
}

/** Collects the figures of one run; sections add to it as they go. */
export class Recorder {
  readonly report: ChaosReport;
  private readonly t0 = Date.now();
  private current: SectionResult | undefined;

  constructor(form: 'short' | 'long', seed: number) {
    this.report = {
      form,
      seed,
      startedAt: new Date().toISOString(),
      durationMs: 0,
      faultsInjected: {},
      retriesByCause: {},
      crashesSurvived: 0,
      inputsTried: 0,
      filesVerified: 0,
      bytesVerified: 0,
      lost: 0,
      secretsFound: 0,
      sections: [],
      failures: [],
      skipped: [],
      ok: false,
    };
  }

  /**
   * Runs one section; a `SectionSkipped` it throws makes it skipped (unless it failed a claim
   * before), any other exception is recorded as a failure of that section.
   */
  async section(name: string, fn: () => Promise<void>): Promise<SectionResult> {
    const s: SectionResult = { name, outcome: 'passed', durationMs: 0, notes: [], failures: [] };
    this.report.sections.push(s);
    this.current = s;
    const t = Date.now();
    try {
      await fn();
    } catch (e) {
      if (e instanceof SectionSkipped) {
        s.skipReason = e.reason;
        this.report.skipped.push(`${name}: ${e.reason}`);
      } else this.fail(`unexpected error: ${(e as Error)?.stack ?? String(e)}`);
    } finally {
      s.durationMs = Date.now() - t;
      s.outcome = s.failures.length ? 'failed' : s.skipReason !== undefined ? 'skipped' : 'passed';
      this.current = undefined;
    }
    return s;
  }

  fault(kind: string, n = 1): void {
    bump(this.report.faultsInjected, kind, n);
  }

  retry(cause: string, n = 1): void {
    bump(this.report.retriesByCause, cause, n);
  }

  verified(bytes: number): void {
    this.report.filesVerified++;
    this.report.bytesVerified += bytes;
  }

  note(text: string): void {
    this.current?.notes.push(text);
  }

  fail(text: string): void {
    const where = this.current ? `[${this.current.name}] ` : '';
    this.current?.failures.push(text);
    this.report.failures.push(`${where}${text}`);
  }

  finish(): ChaosReport {
    const r = this.report;
    r.durationMs = Date.now() - this.t0;
    r.ok = r.failures.length === 0 && r.lost === 0 && r.secretsFound === 0;
    return r;
  }
}

function bump(m: Record<string, number>, k: string, n: number): void {
  m[k] = (m[k] ?? 0) + n;
}

/** Writes report.json and report.md into `dir` (created when missing). */
export async function writeReport(r: ChaosReport, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'report.json'), `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(path.join(dir, 'report.md'), markdown(r));
}

function table(title: string, m: Record<string, number>): string[] {
  const rows = Object.entries(m).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return [`### ${title}`, '', 'none', ''];
  return [`### ${title}`, '', '| kind | count |', '|---|---|', ...rows.map(([k, v]) => `| ${cell(k)} | ${v} |`), ''];
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdown(r: ChaosReport): string {
  const mib = (r.bytesVerified / 1024 / 1024).toFixed(1);
  const skipped = r.sections.filter((s) => s.outcome === 'skipped').map((s) => s.name);
  const lines = [
    `# Chaos run (${r.form} form): ${r.ok ? 'PASSED' : 'FAILED'}${skipped.length ? `, ${skipped.length} section${skipped.length > 1 ? 's' : ''} SKIPPED (${skipped.join(', ')})` : ''}`,
    '',
    `Started ${r.startedAt}, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| files verified (downloaded, compared byte for byte) | ${r.filesVerified} |`,
    `| bytes verified | ${r.bytesVerified} (${mib} MiB) |`,
    `| faults injected | ${Object.values(r.faultsInjected).reduce((a, b) => a + b, 0)} |`,
    `| retries | ${Object.values(r.retriesByCause).reduce((a, b) => a + b, 0)} |`,
    `| crashes survived | ${r.crashesSurvived} |`,
    `| inputs tried (fuzz and hostile) | ${r.inputsTried} |`,
    `| lost (must be 0) | ${r.lost} |`,
    `| secrets found (must be 0) | ${r.secretsFound} |`,
    '',
    ...table('Faults injected', r.faultsInjected),
    ...table('Retries by cause', r.retriesByCause),
    '## Sections',
    '',
  ];
  for (const s of r.sections) {
    const outcome = { passed: 'ok', failed: 'FAILED', skipped: 'SKIPPED' }[s.outcome];
    lines.push(`### ${s.name}: ${outcome} (${(s.durationMs / 1000).toFixed(1)} s)`, '');
    if (s.skipReason !== undefined) lines.push(`- **skipped:** ${s.skipReason}`);
    for (const n of s.notes) lines.push(`- ${n}`);
    for (const f of s.failures) lines.push(`- **failure:** ${f}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
