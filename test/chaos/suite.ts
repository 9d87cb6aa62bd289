import { rm } from 'node:fs/promises';
import { LONG, SHORT, newContext, type ChaosContext } from './context';
import { hostileServer } from './hostile';
import { fuzzEmulator } from './fuzz';
import { keysAndPaths } from './keys';
import { networkChaos } from './network';
import { secretScan } from './security';
import { clockJumps } from './clock';
import { appCrashes } from './app-crash';
import { doorChaos } from './door';
import { uploaderCrashes } from './uploader-crash';
import { emulatorOutage } from './outage';
import { diskFull } from './disk';
import { loadSection } from './load';
import { Recorder, type ChaosReport } from './report';

/** The sections in the order they run; `security` last, since it searches what the others left. */
export const SECTIONS: Record<string, (ctx: ChaosContext) => Promise<void>> = {
  // hostile first: its short timeouts suffer from the disk write-back the network section leaves.
  hostile: hostileServer,
  network: networkChaos,
  outage: emulatorOutage,
  crash: uploaderCrashes,
  clock: clockJumps,
  fuzz: fuzzEmulator,
  keys: keysAndPaths,
  'app-crash': appCrashes,
  door: doorChaos,
  disk: diskFull,
  load: loadSection,
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

/**
 * One run, section by section (so a test can report each on its own); `finish()` removes
 * the run's folder (unless kept) and returns the report.
 */
export class ChaosRun {
  private constructor(
    readonly ctx: ChaosContext,
    private readonly keep: boolean,
  ) {}

  static async start(o: RunOptions = {}): Promise<ChaosRun> {
    const seed = o.seed ?? 1;
    const params = o.long ? LONG : SHORT;
    const rec = new Recorder(params.form, seed);
    return new ChaosRun(await newContext(rec, params, seed), o.keep ?? false);
  }

  /** Runs one section; returns its failures (empty when its claims held). */
  async section(name: string): Promise<string[]> {
    const fn = SECTIONS[name];
    if (!fn) throw new Error(`no section ${name}`);
    const s = await this.ctx.rec.section(name, () => fn(this.ctx));
    return s.failures;
  }

  async finish(): Promise<ChaosReport> {
    if (!this.keep) await rm(this.ctx.root, { recursive: true, force: true });
    else this.ctx.rec.note(`run folder kept: ${this.ctx.root}`);
    return this.ctx.rec.finish();
  }
}

/** Runs the chaos suite and returns its report (never throws for a failed claim). */
export async function runChaos(o: RunOptions = {}): Promise<ChaosReport> {
  const run = await ChaosRun.start(o);
  try {
    for (const name of Object.keys(SECTIONS)) {
      if (o.only && !o.only.includes(name)) continue;
      await run.section(name);
    }
  } finally {
    await run.finish();
  }
  return run.ctx.rec.report;
}
