import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdown } from './report';
import { ChaosRun, SECTIONS } from './suite';

/**
 * The short form of `npm run test:chaos` (fewer, smaller files; fewer fuzz inputs): the same
 * code as the long form, one test per section, in order (security last: it searches what
 * the others left). CHAOS_SEED replays another seed; CHAOS_SKIP=disk,load skips sections.
 * A section that cannot run here shows as a skipped test with its reason; with `CI` set, a
 * skipped section this machine can run fails its test instead.
 */
describe('chaos suite, short form', () => {
  let run: ChaosRun;
  beforeAll(async () => {
    const skip = process.env.CHAOS_SKIP?.split(',').map((s) => s.trim());
    const unknown = skip?.filter((s) => !(s in SECTIONS)) ?? [];
    if (unknown.length) throw new Error(`CHAOS_SKIP names no section ${unknown.join(', ')}`);
    run = await ChaosRun.start({ seed: Number(process.env.CHAOS_SEED ?? 1), skip });
  });
  afterAll(async () => {
    const r = await run.finish();
    if (!r.ok) process.stderr.write(markdown(r));
  });

  for (const name of Object.keys(SECTIONS)) {
    it(`${name}: every claim holds`, { timeout: 300_000 }, async (t) => {
      const s = await run.section(name);
      expect(s.failures).toEqual([]);
      if (s.outcome === 'skipped') t.skip(s.skipReason);
    });
  }

  it('lost nothing, leaked nothing, and measured what it claims', () => {
    const r = run.ctx.rec.report;
    expect(r.lost).toBe(0);
    expect(r.secretsFound).toBe(0);
    expect(r.filesVerified).toBeGreaterThan(40);
    expect(r.faultsInjected['reset']).toBeGreaterThan(0);
    expect(r.faultsInjected['emulator SIGKILL']).toBeGreaterThan(0);
    expect(r.faultsInjected['uploader SIGKILL']).toBeGreaterThan(0);
    expect(r.faultsInjected['app SIGKILL']).toBeGreaterThan(0);
    expect(r.crashesSurvived).toBeGreaterThan(0);
    expect(r.inputsTried).toBeGreaterThan(1000);
    expect(Object.keys(r.retriesByCause).length).toBeGreaterThan(0);
  });
});
