import { describe, expect, it } from 'vitest';
import {
  checkResults,
  formatValue,
  machineName,
  meets,
  summarize,
  textTable,
  type ResultsFile,
  type RunContext,
} from '../../bench/check';
import { BEGIN, END, extractBlock, renderReport, replaceBlock } from '../../bench/report';
import { FIGURES, SECTIONS, type FigureDef } from '../../bench/targets';

const defs: FigureDef[] = [
  { key: 'upper', section: 'one', label: 'at most 10', unit: 'ms', target: { direction: '<=', value: 10, why: 'w' } },
  {
    key: 'lower',
    section: 'one',
    label: 'at least 5',
    unit: 'files/s',
    target: { direction: '>=', value: 5, why: 'w' },
  },
  { key: 'below', section: 'one', label: 'under 150', unit: 'MiB', target: { direction: '<', value: 150, why: 'w' } },
  { key: 'plain', section: 'one', label: 'no target', unit: 'MB/s' },
  {
    key: 'waste',
    section: 'resume',
    label: 'bytes',
    unit: 'bytes',
    target: { direction: '<=', value: 32 * 2 ** 20, why: 'w' },
  },
  { key: 'ui_p95', section: 'ui', label: 'frame', unit: 'ms', target: { direction: '<=', value: 17.5, why: 'w' } },
];
const ran = { ran: true };
const allRan = Object.fromEntries(SECTIONS.map((s) => [s, ran]));
const byKey = (rows: ReturnType<typeof checkResults>) => Object.fromEntries(rows.map((r) => [r.key, r]));

describe('meets', () => {
  it('reads each direction, the bound itself included only where it says so', () => {
    expect(meets(10, { direction: '<=', value: 10, why: '' })).toBe(true);
    expect(meets(10.01, { direction: '<=', value: 10, why: '' })).toBe(false);
    expect(meets(5, { direction: '>=', value: 5, why: '' })).toBe(true);
    expect(meets(4.99, { direction: '>=', value: 5, why: '' })).toBe(false);
    expect(meets(149.9, { direction: '<', value: 150, why: '' })).toBe(true);
    expect(meets(150, { direction: '<', value: 150, why: '' })).toBe(false);
    expect(meets(Number.NaN, { direction: '>=', value: 0, why: '' })).toBe(false);
  });
});

describe('checkResults', () => {
  it('marks a met, a miss, a figure without target and one the bench did not know', () => {
    const rows = byKey(
      checkResults(
        {
          sections: allRan,
          figures: { upper: 12, lower: 5, below: 100, plain: 3, waste: 0, ui_p95: 16.7, new_key: 1 },
        },
        defs,
      ),
    );
    expect(rows.upper!.verdict).toBe('missed');
    expect(rows.lower!.verdict).toBe('met');
    expect(rows.below!.verdict).toBe('met');
    expect(rows.plain!.verdict).toBe('none');
    expect(rows.new_key).toMatchObject({ verdict: 'none', section: 'other', value: 1 });
  });

  it('marks a figure missing from a section that ran, and null (NaN) as missing', () => {
    const rows = byKey(checkResults({ sections: allRan, figures: { lower: 6, below: null, waste: 1 } }, defs));
    expect(rows.upper).toMatchObject({ verdict: 'missing', reason: 'the section did not produce it' });
    expect(rows.below).toMatchObject({ verdict: 'missing', reason: 'not a number' });
    expect(rows.plain).toBeUndefined();
    expect(summarize(Object.values(rows)).passed).toBe(false);
  });

  it('shows the targets of a section that did not run as not run, with its reason, and not as met', () => {
    const rows = checkResults(
      {
        sections: { ...allRan, ui: { ran: false, reason: 'no browser: no Chromium' }, resume: undefined },
        figures: { upper: 1, lower: 9, below: 1, plain: 1 },
      },
      defs,
    );
    const r = byKey(rows);
    expect(r.ui_p95).toMatchObject({ verdict: 'not run', reason: 'no browser: no Chromium' });
    expect(r.waste).toMatchObject({ verdict: 'not run', reason: 'not in the results' });
    expect(summarize(rows)).toEqual({ met: 3, missed: 0, missing: 0, notRun: 2, passed: false });
    expect(textTable(rows)).toContain('not run: no browser: no Chromium');
  });

  it('passes when every target is measured and met; load averages are context, not rows', () => {
    const rows = checkResults(
      { sections: allRan, figures: { upper: 1, lower: 9, below: 1, waste: 1, ui_p95: 16.7, ui_p95_load1: 3 } },
      defs,
    );
    expect(rows.map((r) => r.key)).not.toContain('ui_p95_load1');
    expect(summarize(rows).passed).toBe(true);
  });
});

describe('targets and formats', () => {
  it('lists each figure once, every target with a reason', () => {
    expect(new Set(FIGURES.map((d) => d.key)).size).toBe(FIGURES.length);
    for (const d of FIGURES.filter((x) => x.target)) expect(d.target!.why.length, d.key).toBeGreaterThan(10);
  });

  it('formats bytes as MiB and large numbers with separators', () => {
    expect(formatValue(24 * 2 ** 20, 'bytes')).toBe('24 MiB');
    expect(formatValue(1055.4, 'files/s')).toBe('1,055 files/s');
    expect(formatValue(0.4812, 'ratio')).toBe('0.481');
  });

  it('names machines from the CPU model and cores, or BENCH_MACHINE', () => {
    expect(machineName('AMD EPYC', 2)).toBe('amd-epyc-2c');
    expect(machineName('Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz', 2)).toBe('intel-xeon-platinum-8375c-2c');
    expect(machineName('AMD EPYC 7B13 64-Core Processor', 4)).toBe('amd-epyc-7b13-4c');
    expect(machineName('AMD EPYC', 2, 'Build Box 1')).toBe('build-box-1');
  });
});

describe('renderReport', () => {
  const run = (started: string): RunContext => ({
    started,
    finished: started,
    quotable: true,
    partial: [],
    machine: 'amd-epyc-2c',
    cpu_model: 'AMD EPYC',
    cores: 2,
    memory_gib: 23.5,
    platform: 'linux',
    node: 'v20.20.2',
    commit: 'abcdef0123456789',
    dirty: false,
    dirty_files: [],
    load_before: [1, 2, 3],
    load_during: { min: 1, max: 4, mean: 2, samples: 9 },
  });
  const older: ResultsFile = {
    schema: 1,
    run: run('2026-11-20T10:00:00.000Z'),
    sections: { ui: { ran: true, started: '2026-11-20T10:05:00.000Z', load1: { start: 1, min: 1, max: 2 } } },
    figures: { ui_scroll_frame_p95_ms: 16.7 },
  };
  const newer: ResultsFile = {
    schema: 1,
    run: run('2026-11-27T10:00:00.000Z'),
    sections: { small: { ran: true }, ui: { ran: false, reason: 'no browser: none found' } },
    figures: { small_files_per_s: 495 },
  };

  it('takes each section from the newest run in which it ran, names that run and computes met', () => {
    const text = renderReport([
      { name: '2026-11-20-amd-epyc-2c.json', data: older },
      { name: '2026-11-27-amd-epyc-2c.json', data: newer },
    ]);
    expect(text).toContain('| 2,000 files of 4 KiB (`small_files_per_s`) | 495 files/s | ≥ 300 files/s | yes |');
    const ui = text.slice(text.indexOf('(`ui`)'));
    expect(ui).toContain('From `2026-11-20-amd-epyc-2c.json`: 2026-11-20 10:05 UTC, commit `abcdef0`');
    expect(ui).toContain('| 16.7 ms | ≤ 17.5 ms | yes |');
    const one = text.slice(text.indexOf('(`one`)'), text.indexOf('(`resume`)'));
    expect(one).toContain('not run: not in the results');
  });

  it('replaces only the text between the markers', () => {
    const readme = `# x\n${BEGIN}\nold\n${END}\nafter\n`;
    const next = replaceBlock(readme, 'new\ntable');
    expect(next).toBe(`# x\n${BEGIN}\nnew\ntable\n${END}\nafter\n`);
    expect(extractBlock(next)).toBe('new\ntable');
    expect(() => replaceBlock('# no markers', 'x')).toThrow(/bench:begin/);
  });
});
