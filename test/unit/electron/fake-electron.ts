import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A test double of the Electron runtime (which cannot be downloaded here), just wide
 * enough for src-main/electron's IPC, preload and tray code: ipcMain/ipcRenderer over an
 * in-memory channel, a contextBridge that records what is exposed, webUtils, safeStorage,
 * a dialog whose open-dialog calls are recorded and answered with `dialog.answer`, a Tray
 * that records its tooltips and menus, a protocol whose handlers are kept in `protocol.handlers`
 * and a net.fetch that reads file: URLs as Electron's does. (The built main process runs on the wider stand-in of
 * test/helpers/electron-runtime.)
 * Used with `vi.mock('electron', () => fakeElectron)`.
 */
type Handler = (event: unknown, ...args: unknown[]) => unknown;
type Listener = (...args: unknown[]) => void;

export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
}

export class FakeWebContents {
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  destroyed = false;
  private readonly listeners = new Map<string, Listener[]>();
  readonly mainFrame: FakeFrame;

  constructor(url = 'app://renderer/index.html') {
    this.mainFrame = { url, parent: null };
  }

  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  once(name: string, l: Listener): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), l]);
  }

  destroy(): void {
    this.destroyed = true;
    for (const l of this.listeners.get('destroyed') ?? []) l();
  }
}

export const handlers = new Map<string, Handler>();
/** ipcMain.on listeners (a page's sends, no reply), per channel. */
export const mainListeners = new Map<string, Set<Handler>>();
const rendererListeners = new Map<string, Set<Listener>>();
export const exposed: Record<string, unknown> = {};

export const fakeElectron = {
  ipcMain: {
    handle(channel: string, h: Handler) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, h);
    },
    removeHandler(channel: string) {
      handlers.delete(channel);
    },
    on(channel: string, l: Handler) {
      if (!mainListeners.has(channel)) mainListeners.set(channel, new Set());
      mainListeners.get(channel)?.add(l);
    },
    removeListener(channel: string, l: Handler) {
      mainListeners.get(channel)?.delete(l);
    },
  },
  /** The renderer side: invoke and send reach the main side as if from `fakeElectron.currentSender`. */
  ipcRenderer: {
    send(channel: string, ...args: unknown[]) {
      const sender = fakeElectron.currentSender;
      for (const l of mainListeners.get(channel) ?? []) l({ sender, senderFrame: sender?.mainFrame ?? null }, ...args);
    },
    invoke(channel: string, ...args: unknown[]) {
      const h = handlers.get(channel);
      if (!h) return Promise.reject(new Error(`no handler for ${channel}`));
      const sender = fakeElectron.currentSender;
      return Promise.resolve(h({ sender, senderFrame: sender?.mainFrame ?? null }, ...args));
    },
    on(channel: string, l: Listener) {
      if (!rendererListeners.has(channel)) rendererListeners.set(channel, new Set());
      rendererListeners.get(channel)?.add(l);
    },
    removeListener(channel: string, l: Listener) {
      rendererListeners.get(channel)?.delete(l);
    },
  },
  contextBridge: {
    exposeInMainWorld(name: string, value: unknown) {
      exposed[name] = value;
    },
  },
  webUtils: {
    getPathForFile(file: { path?: string }) {
      if (!file.path) throw new Error('not a file');
      return file.path;
    },
  },
  safeStorage: {
    /** What getSelectedStorageBackend answers (Linux): a test sets `basic_text` for a desktop without a keyring. */
    backend: 'gnome_libsecret',
    getSelectedStorageBackend: () => fakeElectron.safeStorage.backend,
    isEncryptionAvailable: () => true,
    encryptString: (s: string) => Buffer.from(`sealed:${Buffer.from(s).toString('base64')}`),
    decryptString: (b: Buffer) => Buffer.from(b.toString().replace(/^sealed:/, ''), 'base64').toString(),
  },
  dialog: {
    calls: [] as Array<{ window: unknown; options: Record<string, unknown> }>,
    /** What the next showOpenDialog resolves to (the person's choice). */
    answer: { canceled: true, filePaths: [] as string[] },
    showOpenDialog(...args: unknown[]) {
      const [window, options] = args.length > 1 ? args : [undefined, args[0]];
      fakeElectron.dialog.calls.push({ window, options: options as Record<string, unknown> });
      return Promise.resolve(fakeElectron.dialog.answer);
    },
  },
  /** Tray and menus: what the tray was given, in order (tray.ts). */
  Tray: class {
    static created: Array<{ tooltips: string[]; menus: Array<Array<{ label?: string; enabled?: boolean }>> }> = [];
    readonly state = { tooltips: [] as string[], menus: [] as Array<Array<{ label?: string; enabled?: boolean }>> };
    constructor() {
      fakeElectron.Tray.created.push(this.state);
    }
    setToolTip(t: string) {
      this.state.tooltips.push(t);
    }
    setContextMenu(m: { items: Array<{ label?: string; enabled?: boolean }> }) {
      this.state.menus.push(m.items);
    }
    on() {}
    destroy() {}
  },
  Menu: { buildFromTemplate: (items: unknown[]) => ({ items }) },
  Notification: class {
    static isSupported = () => false;
    show() {}
  },
  powerSaveBlocker: { start: () => 1, stop: () => undefined },
  app: {
    isPackaged: false,
    getLoginItemSettings: () => ({ openAtLogin: false }),
    setLoginItemSettings: () => undefined,
  },
  /** Custom schemes: the handler protocol.handle registered, by scheme (app-protocol.ts). */
  protocol: {
    handlers: new Map<string, (request: Request) => Promise<Response>>(),
    handle(scheme: string, h: (request: Request) => Promise<Response>) {
      fakeElectron.protocol.handlers.set(scheme, h);
    },
  },
  /** Electron's net.fetch reads file: URLs (Node's fetch does not); no Content-Type, as the runtime stand-in. */
  net: {
    async fetch(url: string) {
      const file = fileURLToPath(url);
      return existsSync(file) ? new Response(readFileSync(file)) : new Response('not found', { status: 404 });
    },
  },
  currentSender: null as FakeWebContents | null,
  /** Delivers what the main side sent to a window to the renderer-side listeners. */
  deliver(contents: FakeWebContents) {
    for (const { channel, args } of contents.sent.splice(0))
      for (const l of rendererListeners.get(channel) ?? []) l({}, ...args);
  },
};
