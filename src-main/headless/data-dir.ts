import os from 'node:os';
import path from 'node:path';

/** The folder name of the app's data inside the OS's per-user application-data folder. */
export const APP_DIR_NAME = 'Blocklift';

/**
 * The app's data folder, shared by the desktop app, `blocklift serve` and the CLI: the same
 * folder Electron's app.getPath('userData') gives the desktop app (appData + "Blocklift"):
 * %APPDATA%\Blocklift on Windows, ~/Library/Application Support/Blocklift on macOS,
 * $XDG_CONFIG_HOME/Blocklift (default ~/.config/Blocklift) elsewhere.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), APP_DIR_NAME);
}
