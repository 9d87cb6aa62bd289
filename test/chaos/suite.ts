import { rm } from 'node:fs/promises';
import { LONG, SHORT, newContext, type ChaosContext } from './context';
import { hostileServer } from './hostile';
import { fuzzEmulator } from './fuzz';
import { keysAndPaths } from './keys';
import { networkChaos } from './network';
import { secretScan } from './security';
import { emulatorOutage } from './outage';
import { Recorder, type ChaosReport } from './report';

/** The sections in the order they run; `security` last, since it searches what the others left. */
export const SECTIONS: Record<string, (ctx: ChaosContext) => Promise<void>> = {
  network: networkChaos,
  hostile: hostileServer,
  outage: emulatorOutage,
  fuzz: fuzzEmulator,
  keys: keysAndPaths,
  security: secretScan,
};

export interface RunOptions {
  long?: boolean;
  seed?: number;
  /** Names of sections to run (default all). */
  only?: string[];
  /** Keep the run's folder (databases, emulator data) for inspection. */
  keep?: boolean;
}

/** Runs the chaos suite and returns its report (never throws for a failed claim). */
export async function runChaos(o: RunOptions = {}): Promise<ChaosReport> {
  const seed = o.seed ?? 1;
  const params = o.long ? LONG : SHORT;
  const rec = new Recorder(params.form, seed);
  const ctx = await newContext(rec, params, seed);
  try {
    for (const [name, fn] of Object.entries(SECTIONS)) {
      if (o.only && !o.only.includes(name)) continue;
      await rec.section(name, () => fn(ctx));
    }
  } finally {
    if (!o.keep) await rm(ctx.root, { recursive: true, force: true });
    else rec.note(`run folder kept: ${ctx.root}`);
  }
  return rec.finish();
}
