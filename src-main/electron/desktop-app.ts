import { Notification, shell, type BrowserWindow } from 'electron';
import type { Logger } from '../base/logger';
import { DEFAULT_BUCKET } from '../emulator/server';
import { AppService } from '../service/app-service';
import type { SecretStore } from '../service/secrets';
import type { Settings } from '../shared/contract';
import { dialogFolderChooser } from './folder-dialog';

export interface DesktopApp {
  backend: AppService;
  /** The stored settings (null when they cannot be read). */
  settings(): Promise<Settings | null>;
  /** Paths handed to the app (command line, a second launch): uploaded to the Local emulator's bucket when it is the default account. */
  openPaths(paths: string[]): Promise<void>;
  /** Lets in-flight chunks commit and closes everything (the quit path). */
  close(): Promise<void>;
}

/** Opens the app service for the desktop door: safeStorage secrets, and the door's own abilities (open a folder, the folder dialog). */
export async function openDesktopApp(opts: {
  dataDir: string;
  secrets: SecretStore;
  logger?: Logger;
  /** The app's window, which the folder dialog belongs to (none: a free-standing dialog). */
  window: () => BrowserWindow | undefined;
  /** Brings the window to the front (`app.show`: a second launch, through the local door). */
  showWindow: () => void;
  /** The local door's address, the base of the notify URLs of tasks this app submits. */
  publicBaseUrl?: string;
}): Promise<DesktopApp> {
  const service = await AppService.open({
    dataDir: opts.dataDir,
    secrets: opts.secrets,
    logger: opts.logger,
    publicBaseUrl: opts.publicBaseUrl,
    door: {
      door: 'electron',
      openFolder: async (folder) => {
        const error = await shell.openPath(folder);
        if (error) throw new Error(error);
      },
      chooseFolder: dialogFolderChooser(opts.window),
      showWindow: async (paths) => {
        opts.showWindow();
        if (paths.length) await app.openPaths(paths);
      },
    },
  });
  const app: DesktopApp = {
    backend: service,
    async settings() {
      const r = await service.settings.get(undefined);
      return r.ok ? r.value : null;
    },
    async openPaths(paths) {
      const accounts = await service.accounts.list(undefined);
      const local = accounts.ok ? accounts.value.find((a) => a.isDefault || a.isLocal) : undefined;
      if (local?.isLocal) {
        await service.transfers.add({ paths, target: { accountId: local.id, bucket: DEFAULT_BUCKET } });
        return;
      }
      if (Notification.isSupported())
        new Notification({
          title: 'Blocklift',
          body: 'Drop the files onto the window to choose the account and bucket they go to.',
        }).show();
    },
    close: () => service.close(),
  };
  return app;
}
