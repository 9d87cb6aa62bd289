import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * A reporter beside vitest's default one: at the end of a run it lists every skipped test
 * with its reason (the note of `ctx.skip(note)`). The default reporter shows that note only
 * on a terminal running one file; off a terminal (CI, a log) it prints a bare "N skipped".
 * A skip with no note (a name filter, `.only` elsewhere) is listed as such unless a name
 * filter is set; the tests skip with `ctx.skip(reason)` only (eslint refuses `it.skip`,
 * `skipIf`, `runIf`).
 */
export default class SkipReasons implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const filtered = this.vitest?.config.testNamePattern !== undefined;
    const lines: string[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests('skipped')) {
        if (t.options.mode === 'todo') continue;
        const r = t.result();
        const note = r.state === 'skipped' ? r.note : undefined;
        if (note === undefined && filtered) continue;
        const name = `${t.project.name ? `[${t.project.name}] ` : ''}${m.relativeModuleId} > ${t.fullName}`;
        lines.push(`   ↓ ${name} [${note ?? 'no reason given'}]`);
      }
    }
    if (lines.length === 0) return;
    const log = (s: string) => (this.vitest ? this.vitest.logger.log(s) : process.stdout.write(`${s}\n`));
    log(`\n Skipped (${lines.length}), each with its reason:`);
    for (const l of lines) log(l);
  }
}
