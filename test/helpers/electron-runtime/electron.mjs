// The one stand-in for the Electron runtime's main process in tests (the runtime cannot be
// downloaded on these machines): what the `electron` module does, wide enough to run the built dist/electron/main.js under plain Node with its
// real module graph: app lifecycle (ready, single-instance lock between processes, quit with
// Electron's documented event order), windows, tray, menus, notifications, the app:// protocol,
// IPC, dialogs. Loaded through register.mjs (`node --import …/register.mjs main.js`).
//
// It reports what the app does to the test that started it, as messages on the Node IPC
// channel ({ ev: name, ...details }), and takes commands on it ({ cmd: name, ...args }): see
// `commands` below. Environment:
//   STANDIN_DIR       a temporary folder: appData, the single-instance lock and its mailbox
//   STANDIN_APP_PATH  app.getAppPath() (the folder holding package.json and dist/)
//   STANDIN_PACKAGED  '1': app.isPackaged is true (and process.argv loses the script path,
//                     as in a packaged app's [executable, ...args])
//   STANDIN_EXE       process.execPath as the app sees it (a packaged app's executable)
//   STANDIN_WATCH     files (joined with path.delimiter) whose existence each 'app-event'
//                     report carries, seen the moment the event's listeners have returned
import { EventEmitter } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = process.env.STANDIN_DIR ?? fileURLToPath(new URL('.', import.meta.url));
const APP_PATH = process.env.STANDIN_APP_PATH ?? process.cwd();
const PACKAGED = process.env.STANDIN_PACKAGED === '1';
if (PACKAGED) process.argv.splice(1, 1);
if (process.env.STANDIN_EXE) process.execPath = process.env.STANDIN_EXE;

/** A message to the test (dropped when no test listens). */
export function report(ev, details = {}) {
  if (process.send && process.connected) process.send({ ev, ...details });
}

const later = (fn) => setImmediate(fn);
const WATCH = (process.env.STANDIN_WATCH ?? '').split(path.delimiter).filter(Boolean);

/** An Electron-style event: `preventDefault()` and `defaultPrevented`. */
function newEvent() {
  const e = {
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

// ---------------------------------------------------------------------------------------
// app

/**
 * Emits an app lifecycle event to main.ts's listeners (which run synchronously, as in
 * Electron), then reports it: { ev: 'app-event', name, prevented, exists: { [file]: boolean } }.
 */
function emitApp(name, event, ...args) {
  app.emit(name, event, ...args);
  const exists = Object.fromEntries(WATCH.map((f) => [f, existsSync(f)]));
  report('app-event', { name, prevented: event.defaultPrevented, exists });
  return event;
}

const paths = new Map([
  ['appData', path.join(DIR, 'appData')],
  ['home', path.join(DIR, 'home')],
  ['temp', path.join(DIR, 'temp')],
]);
let readyResolve;
const ready = new Promise((r) => (readyResolve = r));
let lockFile = null;
let mailboxTimer = null;
let quitState = 'no';
let loginItem = { openAtLogin: false };

class App extends EventEmitter {
  get isPackaged() {
    return PACKAGED;
  }
  setName(name) {
    this.name = name;
  }
  getName() {
    return this.name ?? 'Electron';
  }
  getVersion() {
    return JSON.parse(readFileSync(path.join(APP_PATH, 'package.json'), 'utf8')).version;
  }
  getAppPath() {
    return APP_PATH;
  }
  getPath(name) {
    const p = paths.get(name);
    if (!p) throw new Error(`stand-in app.getPath: no path ${name}`);
    return p;
  }
  setPath(name, value) {
    paths.set(name, value);
  }
  whenReady() {
    return ready;
  }
  isReady() {
    return readyResolve === null;
  }
  setAppUserModelId(id) {
    report('app-user-model-id', { id });
  }
  getLoginItemSettings() {
    return { ...loginItem };
  }
  setLoginItemSettings(settings) {
    loginItem = { ...loginItem, ...settings };
    report('login-item', { settings });
  }
  /**
   * Electron's single-instance lock, between processes sharing STANDIN_DIR: the first holds
   * a lock file; a later one leaves { argv, cwd, data } in the mailbox and gets false, and
   * the first emits 'second-instance' (event, argv, workingDirectory, additionalData).
   */
  requestSingleInstanceLock(data) {
    mkdirSync(DIR, { recursive: true });
    const file = path.join(DIR, 'instance.lock');
    try {
      closeSync(openSync(file, 'wx'));
    } catch {
      writeFileSync(
        path.join(DIR, `second-${process.pid}.json`),
        JSON.stringify({ argv: process.argv, cwd: process.cwd(), data }),
      );
      report('single-instance', { first: false });
      return false;
    }
    lockFile = file;
    report('single-instance', { first: true });
    mailboxTimer = setInterval(() => {
      for (const name of readdirSync(DIR).filter((n) => /^second-\d+\.json$/.test(n))) {
        const m = JSON.parse(readFileSync(path.join(DIR, name), 'utf8'));
        rmSync(path.join(DIR, name));
        emitApp('second-instance', newEvent(), m.argv, m.cwd, m.data);
      }
    }, 20);
    mailboxTimer.unref();
    return true;
  }
  /** Electron's order: before-quit, then every window's close (any may cancel), will-quit, quit, exit 0. */
  quit() {
    if (quitState === 'closing-windows' || quitState === 'exiting') return;
    report('app-quit-called');
    later(() => {
      const e = emitApp('before-quit', newEvent());
      if (e.defaultPrevented) return;
      quitState = 'closing-windows';
      for (const w of BrowserWindow.getAllWindows()) w.close();
      if (BrowserWindow.getAllWindows().length > 0) {
        quitState = 'no';
        report('quit-canceled-by-window');
        return;
      }
      const wq = emitApp('will-quit', newEvent());
      if (wq.defaultPrevented) {
        quitState = 'no';
        return;
      }
      emitApp('quit', newEvent(), 0);
      this.exit(0);
    });
  }
  exit(code = 0) {
    quitState = 'exiting';
    report('exit', { code });
    releaseLock();
    // Let the report reach the test before the process ends.
    if (process.send && process.connected) process.send({ ev: 'bye' }, () => process.exit(code));
    else process.exit(code);
  }
  focus() {}
  dock = undefined;
}

function releaseLock() {
  if (mailboxTimer) clearInterval(mailboxTimer);
  if (lockFile) rmSync(lockFile, { force: true });
  lockFile = null;
}

export const app = new App();

// ---------------------------------------------------------------------------------------
// protocol and net

const schemes = new Map();
export const protocol = {
  registerSchemesAsPrivileged(list) {
    report('schemes', { schemes: list.map((s) => s.scheme) });
  },
  handle(scheme, handler) {
    schemes.set(scheme, handler);
  },
};
export const net = {
  /** Electron's net.fetch reads file: URLs; Node's fetch does not. */
  async fetch(url, init) {
    const u = new URL(url);
    if (u.protocol === 'file:') {
      const file = fileURLToPath(u);
      if (!existsSync(file)) return new Response('not found', { status: 404 });
      return new Response(readFileSync(file), { status: 200 });
    }
    return fetch(url, init);
  },
};

// ---------------------------------------------------------------------------------------
// IPC, windows

const ipcHandlers = new Map();
export const ipcMain = {
  handle(channel, handler) {
    if (ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    ipcHandlers.set(channel, handler);
    report('ipc-handle', { channel });
  },
  removeHandler(channel) {
    ipcHandlers.delete(channel);
    report('ipc-remove-handler', { channel, windows: BrowserWindow.getAllWindows().length });
  },
  on() {},
};

class WebContents extends EventEmitter {
  destroyed = false;
  mainFrame = { url: 'about:blank', parent: null };
  sent = 0;
  send(channel) {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent++;
    if (this.sent === 1) report('first-event-sent', { channel });
  }
  isDestroyed() {
    return this.destroyed;
  }
  setWindowOpenHandler(h) {
    this.openHandler = h;
  }
}

const windows = new Set();
export class BrowserWindow extends EventEmitter {
  static getAllWindows() {
    return [...windows];
  }
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.visible = false;
    this.destroyed = false;
    windows.add(this);
    report('window-created', { preload: options?.webPreferences?.preload, icon: options?.icon });
  }
  async loadURL(url) {
    const handler = schemes.get(new URL(url).protocol.slice(0, -1));
    if (!handler) throw new Error(`ERR_UNKNOWN_URL_SCHEME: ${url}`);
    const reply = await handler(new Request(url));
    const body = await reply.text();
    if (reply.status !== 200) throw new Error(`ERR_FAILED (${reply.status}) loading '${url}'`);
    this.webContents.mainFrame = { url, parent: null };
    report('window-loaded', { url, csp: reply.headers.get('content-security-policy'), bytes: body.length });
    later(() => this.emit('ready-to-show'));
  }
  show() {
    this.visible = true;
    report('window-shown');
  }
  hide() {
    this.visible = false;
    report('window-hidden');
  }
  focus() {
    report('window-focused');
  }
  restore() {}
  maximize() {}
  isMinimized() {
    return false;
  }
  isMaximized() {
    return false;
  }
  isVisible() {
    return this.visible;
  }
  isDestroyed() {
    return this.destroyed;
  }
  getNormalBounds() {
    return { x: 10, y: 10, width: 1200, height: 800 };
  }
  setProgressBar() {}
  /** Emits 'close' (cancelable); when not canceled, the window goes. */
  close() {
    if (this.destroyed) return;
    const e = newEvent();
    this.emit('close', e);
    if (e.defaultPrevented) return;
    this.destroy();
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    windows.delete(this);
    this.webContents.destroyed = true;
    this.webContents.emit('destroyed');
    this.emit('closed');
    report('window-closed');
    if (windows.size === 0 && quitState === 'no') emitApp('window-all-closed', newEvent());
  }
}

export const screen = {
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
};

// ---------------------------------------------------------------------------------------
// tray, menus, notifications, OS

export class Tray extends EventEmitter {
  constructor(image) {
    super();
    this.menus = 0;
    report('tray-created', { image: typeof image === 'string' ? image : (image?.path ?? null) });
  }
  setToolTip(text) {
    this.tooltip = text;
    report('tray-tooltip', { text });
  }
  setContextMenu(menu) {
    this.menus++;
    report('tray-menu', { labels: menu?.items?.map((i) => i.label ?? `(${i.type})`) ?? [], count: this.menus });
  }
  destroy() {
    report('tray-destroyed');
  }
}
export const Menu = {
  buildFromTemplate: (items) => ({ items }),
};
export class Notification {
  static isSupported() {
    return true;
  }
  constructor(options) {
    this.options = options;
  }
  show() {
    report('notification', { title: this.options?.title, body: this.options?.body });
  }
}
let blockers = 0;
export const powerSaveBlocker = {
  start() {
    return ++blockers;
  },
  stop() {},
};
export const powerMonitor = new EventEmitter();
export const shell = {
  openPath: async () => '',
};
export const dialog = {
  showErrorBox(title, content) {
    report('error-box', { title, content });
  },
  async showOpenDialog() {
    return { canceled: true, filePaths: [] };
  },
};
export const nativeImage = {
  createFromPath: (p) => ({ path: p, setTemplateImage() {}, isEmpty: () => !existsSync(p) }),
};
export const safeStorage = {
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from(`sealed:${Buffer.from(s).toString('base64')}`),
  decryptString: (b) => Buffer.from(b.toString().replace(/^sealed:/, ''), 'base64').toString(),
};

// ---------------------------------------------------------------------------------------
// Commands from the test

const commands = {
  /** The tray menu's Quit, or the OS asking the app to quit. */
  quit: () => app.quit(),
  /** The window's close button. */
  'close-window': () => BrowserWindow.getAllWindows()[0]?.close(),
  /** A window event Electron emits on its own (Windows: 'query-session-end', 'session-end'). */
  'window-event': ({ name }) => {
    const w = BrowserWindow.getAllWindows()[0];
    const e = newEvent();
    w?.emit(name, e);
    return { prevented: e.defaultPrevented };
  },
  /** The page calls a verb through the preload: the IPC handler, from the window's main frame. */
  invoke: async ({ channel, args }) => {
    const w = BrowserWindow.getAllWindows()[0];
    const h = ipcHandlers.get(channel);
    if (!h) return { error: `No handler registered for '${channel}'` };
    return { value: await h({ sender: w?.webContents, senderFrame: w?.webContents.mainFrame ?? null }, ...args) };
  },
};

process.on('message', (m) => {
  const fn = commands[m?.cmd];
  if (!fn) return report('reply', { id: m?.id, error: `unknown command ${m?.cmd}` });
  Promise.resolve()
    .then(() => fn(m))
    .then(
      (value) => report('reply', { id: m.id, value }),
      (e) => report('reply', { id: m.id, error: String(e?.stack ?? e) }),
    );
});
// The IPC channel must not keep the app alive: it ends when it quits, as Electron does.
process.channel?.unref();
process.on('exit', releaseLock);

// Electron is ready once the main script's first turn is done.
setImmediate(() => {
  readyResolve();
  readyResolve = null;
  emitApp('ready', newEvent(), {});
});

export default { app, BrowserWindow, Tray, Menu, Notification, dialog, ipcMain, protocol, net, screen, shell };
