import { APP_VERSION } from '../../shared/version';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { AppServiceError } from './errors';
import { checkSchedule } from '../../sync/schedule';
import { checkBlockSize } from '../../engine/plan';
import { LOCAL_ACCOUNT_NAME } from '../embedded';
import { writeSupportBundle } from '../support-bundle';
import { processHealth } from '../process-health';

/**
 * Settings: one owner per setting. The stored values are the SettingsStore's; the
 * bandwidth limit and the schedule are applied now by the UploadSchedule (the effective
 * limit is the smaller of the user's and the schedule's); concurrency, chunk size, block
 * size and conflict policy reach the running engine at once (core.tuneEngine): in-flight
 * blocks finish with their old sizes, the next files use the new ones.
 */
/** The settings the running engine is tuned with. */
const ENGINE_SETTINGS = ['concurrency', 'chunkSize', 'blockSize', 'conflict'] as const;

export function settingsArea(ctx: ServiceContext): AreaImpl<'settings'> {
  return {
    get: () => ctx.core.settingsStore.get(),
    set: (patch) => {
      if (patch.schedule) checkSchedule(patch.schedule);
      // The engine is built with it at the next start: a size it refuses must not be stored.
      if (patch.blockSize !== undefined) checkBlockSize(patch.blockSize);
      const after = ctx.core.settingsStore.set(patch);
      if (patch.schedule !== undefined) ctx.core.uploadSchedule.setSchedule(after.schedule);
      if (patch.bandwidthLimit !== undefined) ctx.core.uploadSchedule.setUserLimit(after.bandwidthLimit);
      if (ENGINE_SETTINGS.some((k) => patch[k] !== undefined)) ctx.core.tuneEngine(after);
      ctx.emit('settings', after);
      return after;
    },
  };
}

export function appArea(ctx: ServiceContext): AreaImpl<'app'> {
  return {
    status: () => {
      const core = ctx.core;
      const totals = core.transferRows.totals();
      const sched = core.uploadSchedule.current;
      const emulator = core.embedded
        ? { url: core.embedded.emulator.uploadUrl, accountId: core.embedded.accountId }
        : null;
      return {
        version: APP_VERSION,
        door: ctx.door.door ?? 'in-process',
        dataDir: core.dataDir,
        emulator,
        totals,
        throughput: ctx.coalescer.throughput,
        paused: sched.running ? null : 'schedule',
        schedule: sched,
        can: {
          openDataFolder: ctx.door.openFolder !== undefined,
          openPath: ctx.door.openFolder !== undefined,
          localPaths: ctx.door.door !== 'headless',
          chooseFolder: ctx.door.chooseFolder !== undefined,
        },
        secretStore: core.secrets.info(core.settingsStore.get().storeSecretsWithoutKeyring),
        firstRun:
          core.accounts.list().every((a) => a.name === LOCAL_ACCOUNT_NAME) &&
          core.syncRepo.listRoots().length === 0 &&
          Object.values(totals).every((n) => n === 0),
        health: processHealth(),
      };
    },
    openDataFolder: async () => {
      if (!ctx.door.openFolder) throw new AppServiceError('not-supported-here', { what: 'Opening the data folder' });
      await ctx.door.openFolder(ctx.core.dataDir);
      return { opened: true as const };
    },
    chooseFolder: async (input) => {
      if (!ctx.door.chooseFolder) throw new AppServiceError('not-supported-here', { what: 'Choosing a folder' });
      return ctx.door.chooseFolder(input.path);
    },
    show: async (input) => {
      if (!ctx.door.showWindow) throw new AppServiceError('not-supported-here', { what: 'Showing a window' });
      await ctx.door.showWindow(input.paths ?? []);
      return { shown: true as const };
    },
    supportBundle: () =>
      writeSupportBundle({
        db: ctx.core.db,
        dataDir: ctx.core.dataDir,
        accounts: ctx.core.accounts.list(),
        secrets: ctx.core.secrets,
        settings: ctx.core.settingsStore.get(),
        proxyOf: (id) => ctx.prefs.proxyOf(id),
        door: ctx.door.door ?? 'in-process',
      }),
  };
}
