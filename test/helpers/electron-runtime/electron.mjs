// The one stand-in for the Electron runtime's main process in tests (the runtime cannot be
// downloaded on these machines): the `electron` module, wide enough to run the built
// dist/electron/main.js under plain Node with its real module graph. The app lifecycle and
// windows are lifecycle.mjs's; this adds the process around them (the single-instance lock
// between processes, paths, exit), IPC, tray, menus, notifications, dialogs, safeStorage,
// powerMonitor, screen. Loaded through register.mjs (`node --import …/register.mjs main.js`).
//
// It reports what the app does to the test that started it, as messages on the Node IPC
// channel ({ ev: name, ...details }), and takes commands on it ({ cmd: name, ...args }): see
// `commands` below. Environment:
//   STANDIN_DIR       a temporary folder: appData, the single-instance lock and its mailbox
//   STANDIN_APP_PATH  app.getAppPath() (the folder holding package.json and dist/)
//   STANDIN_PACKAGED  '1': app.isPackaged is true (and process.argv loses the script path,
//                     as in a packaged app's [executable, ...args])
//   STANDIN_EXE       app.getPath('exe') as the app sees it (a packaged app's executable; the
//                     process keeps its real execPath, which forks of it run)
//   STANDIN_WATCH     files (joined with path.delimiter) whose existence each 'app-event'
//                     report carries, seen the moment the event's listeners have returned,
//                     and the 'tray-destroyed' report, seen as the tray goes
import { EventEmitter } from 'node:events';
import { createLifecycle, newEvent } from './lifecycle.mjs';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = process.env.STANDIN_DIR ?? fileURLToPath(new URL('.', import.meta.url));
const APP_PATH = process.env.STANDIN_APP_PATH ?? process.cwd();
const PACKAGED = process.env.STANDIN_PACKAGED === '1';
if (PACKAGED) process.argv.splice(1, 1);

/** A message to the test (dropped when no test listens). */
export function report(ev, details = {}) {
  if (process.send && process.connected) process.send({ ev, ...details });
}

const WATCH = (process.env.STANDIN_WATCH ?? '').split(path.delimiter).filter(Boolean);

const lifecycle = createLifecycle({
  report,
  watch: WATCH,
  exit(code) {
    releaseLock();
    // Let the report reach the test before the process ends.
    if (process.send && process.connected) process.send({ ev: 'bye' }, () => process.exit(code));
    else process.exit(code);
  },
});

// ---------------------------------------------------------------------------------------
// app

const paths = new Map([
  ['appData', path.join(DIR, 'appData')],
  ['home', path.join(DIR, 'home')],
  ['temp', path.join(DIR, 'temp')],
  ['exe', process.env.STANDIN_EXE ?? process.execPath],
]);
let lockFile = null;
let mailboxTimer = null;
let loginItem = { openAtLogin: false };

class App extends lifecycle.App {
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
        this.emitEvent('second-instance', newEvent(), m.argv, m.cwd, m.data);
      }
    }, 20);
    mailboxTimer.unref();
    return true;
  }
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

export const protocol = lifecycle.protocol;
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
/** ipcMain.on listeners (messages a page sends without a reply), per channel. */
const ipcListeners = new Map();
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
  on(channel, listener) {
    if (!ipcListeners.has(channel)) ipcListeners.set(channel, new Set());
    ipcListeners.get(channel).add(listener);
  },
  removeListener(channel, listener) {
    ipcListeners.get(channel)?.delete(listener);
  },
};

export const BrowserWindow = lifecycle.BrowserWindow;

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
  /** Reported with the existence of the watched files (STANDIN_WATCH) as the tray goes. */
  destroy() {
    report('tray-destroyed', { exists: Object.fromEntries(WATCH.map((f) => [f, existsSync(f)])) });
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
/** The open message boxes: the test answers one with the 'answer-message-box' command. */
const messageBoxes = [];
export const dialog = {
  showErrorBox(title, content) {
    report('error-box', { title, content });
  },
  /**
   * The asynchronous message box ([window,] options): reported as 'message-box' and open until
   * the test answers it; an aborted `signal` closes it as if cancelled (Electron's behaviour).
   */
  showMessageBox(...args) {
    const [window, options] = args.length > 1 ? args : [undefined, args[0]];
    const { signal, ...shown } = options;
    return new Promise((resolve) => {
      const box = {
        answer(response, by) {
          const i = messageBoxes.indexOf(box);
          if (i < 0) return;
          messageBoxes.splice(i, 1);
          report('message-box-closed', { response, by });
          resolve({ response, checkboxChecked: false });
        },
      };
      messageBoxes.push(box);
      report('message-box', { ...shown, parent: window ? 'window' : null, open: messageBoxes.length });
      signal?.addEventListener('abort', () => box.answer(options.cancelId ?? 0, 'abort'));
    });
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
  /** Linux only in Electron; a desktop with a keyring (STANDIN_SAFE_STORAGE_BACKEND to choose another). */
  getSelectedStorageBackend: () => process.env.STANDIN_SAFE_STORAGE_BACKEND ?? 'gnome_libsecret',
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
  /** The person answers the oldest open message box with the button at `response`. */
  'answer-message-box': ({ response }) => {
    const box = messageBoxes[0];
    if (!box) throw new Error('no message box is open');
    box.answer(response, 'person');
  },
  /**
   * The page's review decisions not saved yet: its beforeunload refuses while there are any
   * (src-renderer/leave-guard.ts), and it reports the count through the preload's send.
   */
  page: ({ unsent, channel }) => {
    const w = BrowserWindow.getAllWindows()[0];
    if (!w) throw new Error('no window');
    w.webContents.beforeUnload = () => unsent > 0;
    const event = { sender: w.webContents, senderFrame: w.webContents.mainFrame };
    for (const l of ipcListeners.get(channel) ?? []) l(event, unsent);
  },
  /** The page is reloaded (the default menu's View → Reload). */
  reload: () => BrowserWindow.getAllWindows()[0]?.webContents.reload(),
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
setImmediate(() => app.makeReady());

export default { app, BrowserWindow, Tray, Menu, Notification, dialog, ipcMain, protocol, net, screen, shell };
