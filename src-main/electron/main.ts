import path from 'node:path';
import { app, powerMonitor, type BrowserWindow } from 'electron';
import { RotatingLog } from '../service/log-file';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { openDesktopApp, type DesktopApp } from './desktop-app';
import { APP_ORIGIN, registerIpcDoor, type IpcDoor } from './ipc';
import { SafeStorageSecretStore } from './secrets';
import { startTray } from './tray';
import { createAppWindow } from './window';
import { freeLoopbackPort, openLocalDoor, type LocalDoor } from '../headless/local-door';
import { databaseFile, defaultDataDir } from '../service/data-dir';

/**
 * The desktop app's main process (package.json "main" → dist/electron/main.js). One
 * instance per user: a second launch hands its paths to the first and exits. The window
 * can close while uploads go on in the tray; quitting waits for in-flight chunks to commit.
 * Besides its window (IPC), the app opens the local door `blocklift serve` opens
 * (headless/local-door.ts: 127.0.0.1, a random token, door.json in the data folder), so the
 * command line hands its work to this app as it does to `serve`.
 */

const APP_NAME = 'Blocklift';
/** Paths given on the command line (files or folders to upload), not flags. */
const argvPaths = (argv: readonly string[]) => argv.slice(app.isPackaged ? 1 : 2).filter((a) => !a.startsWith('-'));

registerAppScheme();
app.setName(APP_NAME);
app.setPath('userData', path.join(app.getPath('appData'), APP_NAME));

let desktop: DesktopApp | undefined;
let ipc: IpcDoor | undefined;
let localDoor: LocalDoor | undefined;
let win: BrowserWindow | undefined;
let tray: { dispose(): void } | undefined;
let log: RotatingLog | undefined;
let quitting = false;
let closed = false;

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
  serveRenderer(rendererDir);
  ipc = registerIpcDoor(desktop.backend);
  // Without it the window still works; only the command line cannot reach this app (it says the queue is in use).
  localDoor = await openLocalDoor({
    backend: desktop.backend,
    dataDir,
    dbFile: databaseFile(dataDir),
    version: app.getVersion(),
    rendererDir,
    stagingDir: path.join(dataDir, 'staging'),
    port,
  }).catch((e: unknown) => {
    log?.write('error', `the local door did not open: ${(e as Error)?.message ?? String(e)}`);
    return undefined;
  });
  if (localDoor) log.write('info', `local door at ${localDoor.door.url} (token in door.json, not logged)`);
  const backend = desktop.backend;
  log.follow((l) => backend.on(l));
  const icon = path.join(root, 'dist', 'electron', 'icon.png');
  win = createAppWindow({
    preload: path.join(root, 'dist', 'electron', 'preload.cjs'),
    boundsFile: path.join(dataDir, 'window-state.json'),
    icon,
    quitting: () => quitting,
  });
  ipc.attach(win.webContents);
  await win.loadURL(`${APP_ORIGIN}/index.html`);
  tray = startTray({
    backend: desktop.backend,
    icon,
    window: () => win,
    showWindow,
    quit: () => app.quit(),
    settings: await desktop.settings(),
  });
  powerMonitor.on('resume', () => void desktop?.backend.roots.rescan({ all: true }));
  if (paths.length) await desktop.openPaths(paths);
}

if (!app.requestSingleInstanceLock({ paths: argvPaths(process.argv) })) {
  app.quit();
} else {
  app.on('second-instance', (_event, _argv, _cwd, data) => {
    showWindow();
    const paths = (data as { paths?: unknown } | undefined)?.paths;
    if (Array.isArray(paths) && paths.length) void desktop?.openPaths(paths.map(String));
  });
  // Closing the last window keeps the app (and its uploads) running in the tray.
  app.on('window-all-closed', () => undefined);
  app.on('activate', showWindow);
  app.on('before-quit', (event) => {
    quitting = true;
    if (closed) return;
    event.preventDefault();
    tray?.dispose();
    ipc?.dispose();
    // door.json goes first: no command hands work to an app that is quitting.
    void (localDoor?.close() ?? Promise.resolve())
      .catch((e: unknown) => log?.write('error', `the local door did not close: ${(e as Error)?.message ?? String(e)}`))
      .then(() => desktop?.close())
      .finally(() => {
        log?.write('info', 'desktop app quit');
        closed = true;
        app.quit();
      });
  });
  app
    .whenReady()
    .then(() => start(argvPaths(process.argv)))
    .catch((e: unknown) => {
      const text = `the app could not start: ${(e as Error)?.stack ?? String(e)}`;
      log?.write('error', text);
      process.stderr.write(`blocklift: ${text}\n`);
      app.exit(1);
    });
}
