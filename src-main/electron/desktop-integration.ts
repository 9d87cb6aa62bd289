import path from 'node:path';

/**
 * The desktop app's OS integration decided per platform, without Electron (main.ts and
 * tray.ts apply the decisions): the Windows AppUserModelID, the tray image, launch at login,
 * the paths a command line hands to the app. Pure, so each platform's decision is tested here.
 */

/**
 * Windows matches notifications (and the taskbar entry) to the installed Start-menu shortcut by
 * this ID; electron-builder's NSIS installer gives the shortcut its `appId`. Without it, Windows
 * may drop the app's notifications.
 */
export const APP_USER_MODEL_ID = 'app.blocklift.desktop';

/** The file name of the app's launcher entry (package.json `desktopName`, the autostart entry). */
export const DESKTOP_ENTRY = 'blocklift.desktop';

/**
 * The tray image: on macOS a 16 pt template image (black and alpha; Electron loads the @2x file
 * beside it on Retina, and macOS tints it for light and dark menu bars); elsewhere the app icon.
 */
export function trayIconFile(platform: NodeJS.Platform, electronDir: string): string {
  return path.join(electronDir, platform === 'darwin' ? 'trayTemplate.png' : 'icon.png');
}

export type LoginItemPlan =
  /** macOS and Windows: app.setLoginItemSettings. */
  | { kind: 'os' }
  /** Linux (XDG autostart): a .desktop file in $XDG_CONFIG_HOME/autostart. */
  | { kind: 'autostart'; file: string; exec: string }
  /** Not possible: why (logged, once). */
  | { kind: 'none'; reason: string };

/**
 * How launch at login is done here. Unpackaged (`npm start`), the executable is the bare
 * Electron runtime: registering it would start Electron's default app at login, not Blocklift,
 * so nothing is registered. On Linux, Electron's setLoginItemSettings does nothing: the XDG
 * autostart entry is the way (an AppImage registers its own file, $APPIMAGE, not the mount
 * point it runs from, which changes at every start).
 */
export function loginItemPlan(opts: {
  platform: NodeJS.Platform;
  isPackaged: boolean;
  execPath: string;
  env: NodeJS.ProcessEnv;
  home: string;
}): LoginItemPlan {
  if (!opts.isPackaged)
    return { kind: 'none', reason: 'launch at login is only registered for the installed app (not under npm start)' };
  if (opts.platform === 'darwin' || opts.platform === 'win32') return { kind: 'os' };
  if (opts.platform !== 'linux')
    return { kind: 'none', reason: `launch at login is not supported on ${opts.platform}` };
  const configHome =
    opts.env.XDG_CONFIG_HOME && path.isAbsolute(opts.env.XDG_CONFIG_HOME)
      ? opts.env.XDG_CONFIG_HOME
      : path.join(opts.home, '.config');
  return {
    kind: 'autostart',
    file: path.join(configHome, 'autostart', DESKTOP_ENTRY),
    exec: opts.env.APPIMAGE || opts.execPath,
  };
}

/** Quotes an argument of a .desktop file's Exec key (Desktop Entry Specification, "The Exec key"). */
function execArg(arg: string): string {
  if (!/[\s"'\\$`<>~|&;*?#()]/.test(arg)) return arg;
  return `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
}

/** The XDG autostart entry that starts the app at login (hidden in the window: --hidden is not used). */
export function autostartEntry(exec: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.0',
    'Name=Blocklift',
    'Comment=Resumable uploads and watched folders',
    `Exec=${execArg(exec)}`,
    'Icon=blocklift',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * Options of `blocklift serve` (commands/serve.ts) that take their value as the next argument:
 * `npm start -- --port 8080` passes them to the desktop app too (bin/start.mjs), and "8080" is
 * not a file to upload.
 */
const FLAGS_WITH_VALUE = new Set(['--port', '--host', '--data', '--db', '--dev-renderer']);

/**
 * The paths a command line hands to the app (files or folders to upload), made absolute
 * against `cwd`, the working directory of the process that got them: flags, and the value of
 * a flag that takes one, are not paths. `argv` is process.argv of that process: a packaged
 * app's is [executable, ...args], `electron .`'s [electron, ...switches, appPath, ...args].
 */
export function argvPaths(argv: readonly string[], opts: { isPackaged: boolean; cwd: string }): string[] {
  let args = argv.slice(1);
  // Unpackaged, the first argument that is not a switch is the app's folder (`electron
  // --no-sandbox .` too).
  if (!opts.isPackaged) args = args.slice(args.findIndex((a) => !a.startsWith('-')) + 1 || args.length);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i + 1).map((p) => path.resolve(opts.cwd, p)));
      break;
    }
    if (a.startsWith('-')) {
      if (FLAGS_WITH_VALUE.has(a)) i++;
      continue;
    }
    out.push(path.resolve(opts.cwd, a));
  }
  return out;
}

/**
 * The paths a second launch hands over: those it resolved itself (additionalData, absolute),
 * else its argv resolved against its own working directory (never the first instance's).
 */
export function secondInstancePaths(
  argv: readonly string[],
  workingDirectory: string,
  data: unknown,
  isPackaged: boolean,
): string[] {
  const given = (data as { paths?: unknown } | null | undefined)?.paths;
  if (Array.isArray(given) && given.every((p) => typeof p === 'string'))
    return given.map((p) => path.resolve(workingDirectory, p));
  return argvPaths(argv, { isPackaged, cwd: workingDirectory });
}

/**
 * Whether a Linux desktop shows the tray icon: yes where a StatusNotifierWatcher is on the
 * session bus; where none is, GNOME shows nothing (it has no legacy tray either), while other
 * desktops may still show it in a legacy (XEmbed) tray; when the bus cannot be asked, only
 * GNOME is taken to hide it.
 */
export function trayShownOnLinux(opts: { env: NodeJS.ProcessEnv; watcherPresent: boolean | null }): boolean {
  if (opts.watcherPresent === true) return true;
  const desktops = (opts.env.XDG_CURRENT_DESKTOP ?? '').split(':').map((d) => d.trim().toLowerCase());
  return !desktops.includes('gnome');
}
