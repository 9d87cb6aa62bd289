import { describe, expect, it } from 'vitest';
import { runChaos } from './suite';

/**
 * The short form of `npm run test:chaos` (fewer, smaller files; fewer fuzz inputs): the same
 * code as the long form, failing when any claim fails. Its report is printed on failure.
 */
describe('chaos suite, short form', () => {
  it('loses nothing, leaks nothing and breaks no claim', { timeout: 600_000 }, async () => {
    const r = await runChaos({ seed: Number(process.env.CHAOS_SEED ?? 1) });
    expect(r.failures, JSON.stringify(r, null, 2)).toEqual([]);
    expect(r.lost).toBe(0);
    expect(r.secretsFound).toBe(0);
    expect(r.filesVerified).toBeGreaterThan(0);
    expect(Object.keys(r.faultsInjected).length).toBeGreaterThan(0);
    expect(r.ok).toBe(true);
  });
});
