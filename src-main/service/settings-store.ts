import type { EngineOptions, EngineTuning } from '../engine/engine';
import { DEFAULT_BLOCK_SIZE_BYTES } from '../engine/plan';
import type { Settings, SettingsPatch } from '../shared/contract';
import type { Schedule } from '../shared/schedule';
import type { SettingsRepo } from '../store/settings-repo';

/** The settings key of the upload schedule (JSON of `Schedule`), as earlier versions stored it. */
export const SCHEDULE_SETTING = 'uploadSchedule';
/** The settings key of every other app setting (JSON of `Settings` minus the schedule). */
export const APP_SETTINGS_KEY = 'appSettings';

export const DEFAULT_SETTINGS: Settings = {
  concurrency: { files: 4, blocksPerFile: 8 },
  bandwidthLimit: null,
  schedule: null,
  blockSize: DEFAULT_BLOCK_SIZE_BYTES,
  chunkSize: null,
  conflict: 'skip',
  notifications: { batchFinished: true, failures: true },
  language: 'system',
  theme: 'system',
  keepAwake: false,
  launchAtLogin: false,
  storeSecretsWithoutKeyring: false,
};

/**
 * The one owner of the stored app settings: reads them with defaults filled, writes a
 * patch (already validated by the service's schemas), and says what the engine is built
 * with. The schedule keeps its own key (`uploadSchedule`) so databases of earlier versions
 * keep theirs.
 */
export class SettingsStore {
  constructor(private readonly repo: SettingsRepo) {}

  get(): Settings {
    const stored = this.repo.get<Partial<Settings>>(APP_SETTINGS_KEY) ?? {};
    const schedule = this.repo.get<Schedule>(SCHEDULE_SETTING) ?? null;
    return {
      ...DEFAULT_SETTINGS,
      ...stored,
      concurrency: { ...DEFAULT_SETTINGS.concurrency, ...stored.concurrency },
      notifications: { ...DEFAULT_SETTINGS.notifications, ...stored.notifications },
      schedule,
    };
  }

  /** Writes the patch over the stored settings; returns the whole settings after it. */
  set(patch: SettingsPatch): Settings {
    const { schedule, ...rest } = patch;
    const { schedule: _current, ...current } = this.get();
    void _current;
    this.repo.set(APP_SETTINGS_KEY, {
      ...current,
      ...rest,
      concurrency: { ...current.concurrency, ...rest.concurrency },
      notifications: { ...current.notifications, ...rest.notifications },
    });
    if (schedule !== undefined) {
      if (schedule === null) this.repo.delete(SCHEDULE_SETTING);
      else this.repo.set(SCHEDULE_SETTING, schedule);
    }
    return this.get();
  }

  /** Engine options from the settings (the caller's own options win: a CLI flag for one run). */
  engineOptions(s: Settings): Omit<EngineOptions, 'store' | 'account'> {
    const t = engineTuning(s);
    return {
      limits: t.limits,
      defaultBlockSize: t.defaultBlockSize,
      defaultConflict: t.defaultConflict,
      ...(t.chunkBytes !== null ? { chunkBytes: t.chunkBytes } : {}),
    };
  }
}

/**
 * What the settings tune in a running engine (UploadEngine.reconfigure): concurrency, chunk
 * size, block size and conflict policy. `run` is this run's own tuning (CLI flags), which
 * wins over the stored settings field by field.
 */
export function engineTuning(s: Settings, run: Partial<EngineOptions> = {}): Required<EngineTuning> {
  return {
    limits: { maxFiles: s.concurrency.files, maxBlocksPerFile: s.concurrency.blocksPerFile, ...run.limits },
    chunkBytes: run.chunkBytes ?? s.chunkSize,
    defaultBlockSize: run.defaultBlockSize ?? s.blockSize,
    defaultConflict: run.defaultConflict ?? s.conflict,
  };
}
