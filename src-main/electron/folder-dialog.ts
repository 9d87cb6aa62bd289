import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron';
import type { FolderChoice } from '../shared/contract';

/**
 * The desktop door's `app.chooseFolder` (DoorCapabilities): the system's folder dialog,
 * attached to the app's window when it is open, starting at `start` when given. Answers the
 * folder chosen, or `canceled`.
 */
export function dialogFolderChooser(
  window: () => BrowserWindow | undefined,
): (start: string | undefined) => Promise<FolderChoice> {
  return async (start) => {
    const options: OpenDialogOptions = {
      properties: ['openDirectory', 'createDirectory', 'dontAddToRecent'],
      ...(start ? { defaultPath: start } : {}),
    };
    const win = window();
    const r =
      win && !win.isDestroyed() ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    const chosen = r.filePaths[0];
    return r.canceled || !chosen ? { kind: 'canceled' } : { kind: 'chosen', path: chosen };
  };
}
