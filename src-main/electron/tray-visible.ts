import { execFile } from 'node:child_process';
import { trayShownOnLinux } from './desktop-integration';

/**
 * Whether a tray icon is really shown on this desktop, so that closing the window may leave
 * the app running in it. macOS and Windows always show it. On Linux, Electron's tray is a
 * StatusNotifierItem: it shows where a StatusNotifierWatcher owns its D-Bus name (KDE, Ubuntu's
 * AppIndicator extension, most panels); GNOME without such an extension shows nothing.
 */
export async function trayVisible(platform: NodeJS.Platform = process.platform, env = process.env): Promise<boolean> {
  if (platform !== 'linux') return true;
  return trayShownOnLinux({ env, watcherPresent: await statusNotifierWatcherPresent(env) });
}

/** Asks the session bus whether org.kde.StatusNotifierWatcher has an owner (null: the bus could not be asked). */
export function statusNotifierWatcherPresent(env: NodeJS.ProcessEnv = process.env): Promise<boolean | null> {
  return new Promise((resolve) => {
    execFile(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--reply-timeout=2000',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.kde.StatusNotifierWatcher',
      ],
      { env, timeout: 3000 },
      (err, stdout) => {
        if (err) return resolve(null);
        const m = /boolean (true|false)/.exec(stdout);
        resolve(m ? m[1] === 'true' : null);
      },
    );
  });
}
