import { APP_VERSION } from '../../shared/version';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { AppServiceError } from './errors';

/** Verbs `settings.*` over the settings use case (use-cases/settings.ts: the one way a setting changes). */
export function settingsArea(ctx: ServiceContext): AreaImpl<'settings'> {
  return {
    get: () => ctx.settings.get(),
    set: (patch) => {
      const after = ctx.settings.set(patch);
      ctx.emit('settings', after);
      return after;
    },
  };
}

/** Verbs `app.*`: the backend's status and support bundle (use-cases/app.ts), and what only a door can do. */
export function appArea(ctx: ServiceContext): AreaImpl<'app'> {
  const door = ctx.door;
  return {
    status: () => ({
      ...ctx.app.status(),
      version: APP_VERSION,
      door: door.door ?? 'in-process',
      throughput: ctx.coalescer.throughput,
      can: {
        openDataFolder: door.openFolder !== undefined,
        openPath: door.openFolder !== undefined,
        localPaths: door.door !== 'headless',
        chooseFolder: door.chooseFolder !== undefined,
      },
    }),
    openDataFolder: async () => {
      if (!door.openFolder) throw new AppServiceError('not-supported-here', { what: 'Opening the data folder' });
      await door.openFolder(ctx.app.dataDir);
      return { opened: true as const };
    },
    chooseFolder: async (input) => {
      if (!door.chooseFolder) throw new AppServiceError('not-supported-here', { what: 'Choosing a folder' });
      return door.chooseFolder(input.path);
    },
    show: async (input) => {
      if (!door.showWindow) throw new AppServiceError('not-supported-here', { what: 'Showing a window' });
      await door.showWindow(input.paths ?? []);
      return { shown: true as const };
    },
    supportBundle: () => ctx.app.supportBundle(door.door ?? 'in-process'),
  };
}
