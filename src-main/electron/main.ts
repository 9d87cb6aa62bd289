import path from 'node:path';
import { app, dialog, powerMonitor, type BrowserWindow } from 'electron';
import type { CloseGuard } from './close-guard';
import { RotatingLog } from '../service/log-file';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { openDesktopApp, type DesktopApp } from './desktop-app';
import { APP_USER_MODEL_ID, argvPaths, secondInstancePaths, trayIconFile } from './desktop-integration';
import { APP_ORIGIN, registerIpcDoor, type IpcDoor } from './ipc';
import { installQuitFlow, QUIT_TIMEOUT_MS } from './quit-flow';
import { SafeStorageSecretStore } from './secrets';
import { startTray } from './tray';
import { trayVisible } from './tray-visible';
import { createAppWindow } from './window';
import { freeLoopbackPort, openLocalDoor, type LocalDoor } from '../headless/local-door';
import { databaseFile, defaultDataDir, stagingDir } from '../service/data-dir';

/**
 * The desktop app's main process (package.json "main" → dist/electron/main.js). One
 * instance per user: a second launch hands its paths to the first and exits. The window
 * can close while uploads go on in the tray; quitting waits for in-flight chunks to commit.
 * Besides its window (IPC), the app opens the local door `blocklift serve` opens
 * (headless/local-door.ts: 127.0.0.1, a random token, door.json in the data folder), so the
 * command line hands its work to this app as it does to `serve`.
 */

const APP_NAME = 'Blocklift';
/** Paths given on this process's command line (files or folders to upload), absolute. */
const ownPaths = () => argvPaths(process.argv, { isPackaged: app.isPackaged, cwd: process.cwd() });

registerAppScheme();
app.setName(APP_NAME);
app.setPath('userData', path.join(app.getPath('appData'), APP_NAME));
// Windows matches notifications to the installed shortcut by this ID (electron-builder's appId).
if (process.platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);

let desktop: DesktopApp | undefined;
let ipc: IpcDoor | undefined;
let localDoor: LocalDoor | undefined;
let win: BrowserWindow | undefined;
let guard: CloseGuard | undefined;
let tray: { dispose(): void } | undefined;
let log: RotatingLog | undefined;
/** Whether a tray icon is really shown (desktop-integration.ts): else closing the window quits. */
let trayShown = process.platform !== 'linux';

const quit = installQuitFlow({
  app,
  // The window first: its page may hold review decisions not saved yet and the person may choose Wait.
  leave: (force) => (win && guard && !win.isDestroyed() ? guard.leave(force) : Promise.resolve({ left: true })),
  afterLeave: () => {
    tray?.dispose();
    tray = undefined;
  },
  // door.json goes first: no command hands work to an app that is quitting.
  close: async () => {
    await localDoor
      ?.close()
      .catch((e: unknown) =>
        log?.write('error', `the local door did not close: ${(e as Error)?.message ?? String(e)}`),
      );
    await desktop?.close();
  },
  afterWindows: () => ipc?.dispose(),
  log: (level, text) => log?.write(level, text),
  timeoutMs: QUIT_TIMEOUT_MS,
});

function showWindow(): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

async function start(paths: string[]): Promise<void> {
  const root = app.getAppPath();
  // The same data folder as `blocklift serve` and the CLI (one queue); userData keeps Chromium's profile.
  const dataDir = defaultDataDir();
  log = new RotatingLog({ dataDir });
  log.write('info', `desktop app ${app.getVersion()} starting`);
  void trayVisible().then((shown) => {
    trayShown = shown;
    log?.write(
      'info',
      shown ? 'tray icon shown: closing the window keeps the app' : 'no tray icon shown here: closing the window quits',
    );
  });
  // The local door's port is known first: tasks the app submits carry notify URLs below it.
  const port = await freeLoopbackPort();
  desktop = await openDesktopApp({
    dataDir,
    logger: log.logger(),
    secrets: new SafeStorageSecretStore(path.join(dataDir, 'secrets.json')),
    window: () => win,
    showWindow,
    publicBaseUrl: `http://127.0.0.1:${port}`,
  });
  const rendererDir = path.join(root, 'dist', 'renderer');
  serveRenderer(rendererDir, desktop.backend);
  ipc = registerIpcDoor(desktop.backend);
  // Without it the window still works; only the command line cannot reach this app (it says the queue is in use).
  localDoor = await openLocalDoor({
    backend: desktop.backend,
    dataDir,
    dbFile: databaseFile(dataDir),
    version: app.getVersion(),
    rendererDir,
    stagingDir: stagingDir(dataDir),
    port,
  }).catch((e: unknown) => {
    log?.write('error', `the local door did not open: ${(e as Error)?.message ?? String(e)}`);
    return undefined;
  });
  if (localDoor) log.write('info', `local door at ${localDoor.door.url} (token in door.json, not logged)`);
  const backend = desktop.backend;
  log.follow((l) => backend.on(l));
  const icon = path.join(root, 'dist', 'electron', 'icon.png');
  const ipcDoor = ipc;
  ({ window: win, guard } = createAppWindow({
    preload: path.join(root, 'dist', 'electron', 'preload.cjs'),
    boundsFile: path.join(dataDir, 'window-state.json'),
    icon,
    // Close to the tray only where a tray icon is shown; else the window's close quits.
    quitting: () => quit.quitting || !trayShown,
    guard: {
      unsent: () => (win && !win.isDestroyed() ? ipcDoor.unsent(win.webContents) : 0),
      show: showWindow,
      log: (level, text) => log?.write(level, text),
    },
  }));
  ipc.onUnsent((contents, count) => {
    if (win && !win.isDestroyed() && contents === win.webContents) guard?.unsentChanged(count);
  });
  // Windows log-off or shutdown sends no 'before-quit': close as Quit does, not to the tray, and
  // without asking (nobody answers while the session ends; unsaved review decisions are logged as lost).
  win.on('session-end', () => quit.quitNow('session end'));
  ipc.attach(win.webContents);
  await win.loadURL(`${APP_ORIGIN}/index.html`);
  tray = startTray({
    backend: desktop.backend,
    icon: trayIconFile(process.platform, path.join(root, 'dist', 'electron')),
    window: () => win,
    showWindow,
    quit: () => app.quit(),
    settings: await desktop.settings(),
    log: (level, text) => log?.write(level, text),
  });
  powerMonitor.on('resume', () => void desktop?.backend.roots.rescan({ all: true }));
  if (paths.length) await desktop.openPaths(paths);
}

if (!app.requestSingleInstanceLock({ paths: ownPaths() })) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory, data) => {
    showWindow();
    // Relative paths are the second process's: resolved against its working directory.
    const paths = secondInstancePaths(argv, workingDirectory, data, app.isPackaged);
    if (paths.length) void desktop?.openPaths(paths);
  });
  // Closing the last window keeps the app (and its uploads) running in the tray, where one is shown.
  app.on('window-all-closed', () => {
    if (!trayShown) app.quit();
  });
  app.on('activate', showWindow);
  app
    .whenReady()
    .then(() => start(ownPaths()))
    .catch((e: unknown) => {
      const text = `the app could not start: ${(e as Error)?.stack ?? String(e)}`;
      log?.write('error', text);
      process.stderr.write(`blocklift: ${text}\n`);
      // A person who clicked the icon sees no terminal: say it in a dialog too.
      dialog.showErrorBox(
        'Blocklift could not start',
        `${(e as Error)?.message ?? String(e)}${log ? `\n\nDetails are in ${log.file}.` : ''}`,
      );
      app.exit(1);
    });
}
