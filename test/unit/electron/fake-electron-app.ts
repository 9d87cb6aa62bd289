/**
 * The Electron runtime stood in for the whole main process (src-main/electron/main.ts), which
 * cannot run here (the runtime cannot be downloaded): `fakeElectron` (IPC, preload, dialog,
 * safeStorage) plus an `app` whose lifecycle a test drives (ready, second-instance,
 * before-quit), windows that record being shown and focused, and inert tray, menu,
 * notification, protocol, screen and power parts. Nothing here uploads or serves: the main
 * process's own code (the app service, the IPC door, the local door) runs for real.
 * Used with `vi.mock('electron', () => fakeElectronApp)`.
 */
import { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fakeElectron, FakeWebContents } from './fake-electron';

type Listener = (...args: unknown[]) => void;

/** What a test reads of the one window. */
export class FakeBrowserWindow extends EventEmitter {
  static all: FakeBrowserWindow[] = [];
  readonly webContents: FakeWebContents & {
    setWindowOpenHandler(h: unknown): void;
    on(name: string, l: Listener): void;
  };
  shows = 0;
  focuses = 0;
  loaded: string | null = null;
  private destroyed = false;
  private minimized = false;

  constructor(readonly options: Record<string, unknown>) {
    super();
    const contents = new FakeWebContents() as FakeBrowserWindow['webContents'];
    contents.setWindowOpenHandler = () => undefined;
    contents.on = () => undefined;
    this.webContents = contents;
    FakeBrowserWindow.all.push(this);
  }
  async loadURL(url: string): Promise<void> {
    this.loaded = url;
    this.emit('ready-to-show');
  }
  show(): void {
    this.shows++;
  }
  focus(): void {
    this.focuses++;
  }
  hide(): void {}
  /** A real close (quitting): the window is gone. */
  close(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('closed');
  }
  maximize(): void {}
  minimize(): void {
    this.minimized = true;
  }
  restore(): void {
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isMaximized(): boolean {
    return false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: 1200, height: 800 };
  }
  setProgressBar(): void {}
}

class FakeApp extends EventEmitter {
  /** The app root (getAppPath): the checkout, whose dist/ holds the built renderer. */
  root = process.cwd();
  /** Where appData points (Chromium's profile would go below it). */
  appData = path.join(os.tmpdir(), 'bl-fake-electron-appdata');
  isPackaged = false;
  quitCalls = 0;
  /** Set once before-quit was let through (the app would end now). */
  ended = false;
  exitCode: number | null = null;
  private ready!: () => void;
  private readonly readyP = new Promise<void>((r) => (this.ready = r));
  private loginItem = { openAtLogin: false };

  setName(): void {}
  setPath(): void {}
  getPath(name: string): string {
    return name === 'appData' ? this.appData : path.join(this.appData, name);
  }
  getAppPath(): string {
    return this.root;
  }
  getVersion(): string {
    return '0.0.0-standin';
  }
  requestSingleInstanceLock(): boolean {
    return true;
  }
  whenReady(): Promise<void> {
    return this.readyP;
  }
  /** The runtime is ready: main.ts starts the app. */
  makeReady(): void {
    this.ready();
  }
  quit(): void {
    this.quitCalls++;
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (prevented) return;
    // As Electron: the windows are closed, then 'will-quit', then the app ends.
    this.emit('will-quit', { preventDefault: () => undefined });
    this.ended = true;
  }
  exit(code: number): void {
    this.exitCode = code;
    this.ended = true;
  }
  getLoginItemSettings() {
    return this.loginItem;
  }
  setLoginItemSettings(s: { openAtLogin: boolean }): void {
    this.loginItem = s;
  }
  setAppUserModelId(): void {}
}

export const fakeApp = new FakeApp();

class Inert extends EventEmitter {
  setToolTip(): void {}
  setContextMenu(): void {}
  destroy(): void {}
  show(): void {}
}

export const fakeElectronApp = {
  ...fakeElectron,
  app: fakeApp,
  BrowserWindow: FakeBrowserWindow,
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  protocol: { registerSchemesAsPrivileged: () => undefined, handle: () => undefined },
  net: { fetch: () => Promise.reject(new Error('not in the stand-in')) },
  powerMonitor: new EventEmitter(),
  powerSaveBlocker: { start: () => 1, stop: () => undefined },
  Tray: Inert,
  Menu: { buildFromTemplate: (t: unknown) => t },
  Notification: Object.assign(Inert, { isSupported: () => false }),
  shell: { openPath: async () => '' },
};
