import { RUNNING_STATES } from '../../engine/snapshot';
import { checkBlockSize } from '../../engine/plan';
import type { UploadEngine } from '../../engine/engine';
import type { Settings, SettingsPatch } from '../../shared/contract';
import type { CoreProblem } from '../../shared/events';
import type { SqliteTransferStore } from '../../store/transfer-repo';
import { checkSchedule, type Schedule, type ScheduleState } from '../../sync/schedule';
import type { AppCoreOptions } from '../app-core-options';
import { engineTuning, type SettingsStore } from '../settings-store';
import type { UploadSchedule } from '../upload-schedule';

/** The settings the running engine is tuned with. */
const ENGINE_SETTINGS = ['concurrency', 'chunkSize', 'blockSize', 'conflict'] as const;

export interface SettingsDeps {
  store: SettingsStore;
  /** The upload schedule and the user's bandwidth limit (the engine's limit is the smaller). */
  schedule: UploadSchedule;
  engine: Pick<UploadEngine, 'reconfigure'>;
  /** At open, what a killed run left running counts as queued first. */
  transfers: Pick<SqliteTransferStore, 'moveStates'>;
  /** This run's own engine tuning (CLI flags): it keeps winning over settings changed while open. */
  runEngine: AppCoreOptions['engine'];
  problem: (p: CoreProblem) => void;
}

/**
 * The settings use case (verbs `settings.*`): the one way a setting is changed. A patch is
 * checked, stored (SettingsStore) and applied now: the schedule and the user's bandwidth
 * limit by the UploadSchedule, concurrency, chunk size, block size and conflict policy by
 * the running engine (in-flight blocks finish with their old sizes; new files use the new
 * ones; this run's CLI tuning still wins). `applyAtOpen` applies the stored ones before the
 * engine starts.
 */
export class SettingsUseCase {
  constructor(private readonly d: SettingsDeps) {}

  get(): Settings {
    return this.d.store.get();
  }

  /** Checks (ScheduleError, PlanError), stores and applies the patch; returns the settings after it. */
  set(patch: SettingsPatch): Settings {
    if (patch.schedule) checkSchedule(patch.schedule);
    // The engine is built with it at the next start: a size it refuses must not be stored.
    if (patch.blockSize !== undefined) checkBlockSize(patch.blockSize);
    const after = this.d.store.set(patch);
    if (patch.schedule !== undefined) this.d.schedule.setSchedule(after.schedule);
    if (patch.bandwidthLimit !== undefined) this.d.schedule.setUserLimit(after.bandwidthLimit);
    if (ENGINE_SETTINGS.some((k) => patch[k] !== undefined))
      this.d.engine.reconfigure(engineTuning(after, this.d.runEngine));
    return after;
  }

  /** Sets the upload schedule (null: always run) as `set` does; returns the schedule's state now. */
  setSchedule(schedule: Schedule | null): ScheduleState {
    this.set({ schedule });
    const { running, bytesPerSecond } = this.d.schedule.current;
    return { running, bytesPerSecond };
  }

  /**
   * At open, before the engine starts: the user's bandwidth limit (this run's flag first)
   * and the stored schedule, applied together. What a killed run left running counts as
   * queued first (when this run uploads), so a pause window holds it before it can start. A
   * stored schedule that is no longer valid is not applied: a problem says so.
   */
  applyAtOpen(startEngine: boolean): void {
    const s = this.d.store.get();
    const run = this.d.runEngine;
    const userLimit = run?.bandwidthBytesPerSec !== undefined ? run.bandwidthBytesPerSec : s.bandwidthLimit;
    if (startEngine) this.d.transfers.moveStates(RUNNING_STATES, 'queued');
    try {
      this.d.schedule.start(s.schedule, userLimit);
    } catch (e) {
      this.d.schedule.start(null, userLimit);
      this.d.problem({
        code: 'invalid-schedule',
        message: `The stored upload schedule is not valid and was not applied (${e instanceof Error ? e.message : String(e)}); set it again in Settings.`,
      });
    }
  }
}
