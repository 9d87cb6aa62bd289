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
import { canMountTmpfs, diskFull } from './disk';
import { loadSection } from './load';
import { Recorder, SectionSkipped, type ChaosReport, type MachineCheck, type SectionResult } from './report';

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

/**
 * The probe of each section that can be skipped (it throws `SectionSkipped` when the machine
 * lacks what it needs): in CI, a skip where the probe says the machine can run the section
 * is a failure. A section with no probe here cannot be skipped in CI.
 */
export const MACHINE_CHECKS: Record<string, () => Promise<MachineCheck>> = {
  disk: canMountTmpfs,
};

/** `CI` set (and not "false" or "0"), as CI services set it and `.ci/run` does. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== 'false' && v !== '0';
}

export interface RunOptions {
  long?: boolean;
  seed?: number;
  /** Names of sections to run (default all). */
  only?: string[];
  /** Names of sections to skip on purpose (reported as skipped; in CI, a failure where the machine can run them). */
  skip?: string[];
  /** Whether a skip of a section this machine can run fails the run (default: `inCi()`). */
  ci?: boolean;
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
    private readonly o: RunOptions,
  ) {}

  static async start(o: RunOptions = {}): Promise<ChaosRun> {
    const seed = o.seed ?? 1;
    const params = o.long ? LONG : SHORT;
    const rec = new Recorder(params.form, seed);
    return new ChaosRun(await newContext(rec, params, seed), o);
  }

  /**
   * Runs one section; returns its result: `failures` empty when its claims held, `outcome`
   * `skipped` (with `skipReason`) when it could not run here and that is allowed.
   */
  async section(name: string): Promise<SectionResult> {
    const fn = SECTIONS[name];
    if (!fn) throw new Error(`no section ${name}`);
    const skipAsked = this.o.skip?.includes(name) ?? false;
    return this.ctx.rec.section(name, async () => {
      try {
        if (skipAsked) throw new SectionSkipped('asked to skip it (--skip or CHAOS_SKIP)');
        await fn(this.ctx);
      } catch (e) {
        if (e instanceof SectionSkipped && (this.o.ci ?? inCi())) await this.skippedInCi(name, e);
        throw e;
      }
    });
  }

  /** In CI a skip is a failure unless the section's own probe says this machine cannot run it. */
  private async skippedInCi(name: string, e: SectionSkipped): Promise<void> {
    const check = MACHINE_CHECKS[name];
    const m = check
      ? await check().catch((x: Error) => ({ can: false, detail: `probe failed: ${x.message}` }))
      : undefined;
    if (m && !m.can) {
      this.ctx.rec.note(`CI: skip accepted, this machine cannot run the section (${m.detail})`);
      return;
    }
    const can = m ? `this machine can run it (${m.detail})` : 'no probe says this machine cannot run it';
    this.ctx.rec.fail(
      `skipped in CI although ${can}; in CI every section the machine can run must run; reason given: ${e.reason}`,
    );
  }

  async finish(): Promise<ChaosReport> {
    if (!this.o.keep) await rm(this.ctx.root, { recursive: true, force: true });
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
