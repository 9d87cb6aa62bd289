// How the Electron main process's lifecycle behaves in tests, in one place: the `app` events
// (ready, second-instance, before-quit, will-quit, quit, window-all-closed) in Electron's
// documented order, and windows whose close is cancelable (by the main process's 'close' and
// by the page's beforeunload, which Electron reports as the page's 'will-prevent-unload') and
// whose going ends a quit or emits window-all-closed. electron.mjs (the stand-in `electron` module the built main.js runs
// on) builds on it; a unit test can drive it directly, with no process around it.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';

/** An Electron-style event: `preventDefault()` and `defaultPrevented`. */
export function newEvent() {
  const e = {
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

/**
 * A lifecycle: `{ App, BrowserWindow, protocol }`. `report(ev, details)` hears what happens;
 * `exit(code)` ends the process (after the 'exit' report); `watch` lists files whose existence
 * each 'app-event' report carries, seen as the event's listeners return.
 */
export function createLifecycle({ report = () => undefined, exit = () => undefined, watch = [] } = {}) {
  const later = (fn) => setImmediate(fn);
  let quitState = 'no';
  /** The app (one per lifecycle): window-all-closed is its event. */
  const apps = [];
  const windows = new Set();
  const schemes = new Map();

  class App extends EventEmitter {
    constructor() {
      super();
      apps.push(this);
      this.readyResolve = undefined;
      this.readyP = new Promise((r) => (this.readyResolve = r));
    }
    /**
     * Emits an app event to the app's listeners (synchronously, as Electron does), then
     * reports it: { ev: 'app-event', name, prevented, exists: { [file]: boolean } }.
     */
    emitEvent(name, event, ...args) {
      this.emit(name, event, ...args);
      const exists = Object.fromEntries(watch.map((f) => [f, existsSync(f)]));
      report('app-event', { name, prevented: event.defaultPrevented, exists });
      return event;
    }
    whenReady() {
      return this.readyP;
    }
    isReady() {
      return this.readyResolve === null;
    }
    /** Electron is ready (electron.mjs: once the main script's first turn is done). */
    makeReady() {
      this.readyResolve();
      this.readyResolve = null;
      this.emitEvent('ready', newEvent(), {});
    }
    /** Electron's order: before-quit, then every window's close (any may cancel), will-quit, quit, exit 0. */
    quit() {
      if (quitState === 'closing-windows' || quitState === 'exiting') return;
      report('app-quit-called');
      later(() => {
        const e = this.emitEvent('before-quit', newEvent());
        if (e.defaultPrevented) return;
        quitState = 'closing-windows';
        for (const w of BrowserWindow.getAllWindows()) w.close();
        if (BrowserWindow.getAllWindows().length > 0) {
          quitState = 'no';
          report('quit-canceled-by-window');
          return;
        }
        const wq = this.emitEvent('will-quit', newEvent());
        if (wq.defaultPrevented) {
          quitState = 'no';
          return;
        }
        this.emitEvent('quit', newEvent(), 0);
        this.exit(0);
      });
    }
    exit(code = 0) {
      quitState = 'exiting';
      report('exit', { code });
      exit(code);
    }
    focus() {}
  }

  const protocol = {
    registerSchemesAsPrivileged(list) {
      report('schemes', { schemes: list.map((s) => s.scheme) });
    },
    handle(scheme, handler) {
      schemes.set(scheme, handler);
    },
  };

  class WebContents extends EventEmitter {
    destroyed = false;
    mainFrame = { url: 'about:blank', parent: null };
    sent = 0;
    /**
     * The page's beforeunload handler, if it has one: returns true to refuse the unload. The
     * page answers on a later turn (the renderer is another process); Chromium does not ask a
     * page without such a handler, which goes at once.
     */
    beforeUnload = null;
    /**
     * Asks the page before it unloads; `go()` runs when it may. A refusal is reported to the
     * main process as 'will-prevent-unload'; its preventDefault() lets the page go anyway.
     */
    askToUnload(go) {
      const handler = this.beforeUnload;
      if (!handler) return go();
      later(() => {
        if (this.destroyed) return;
        if (!handler()) return go();
        const e = newEvent();
        this.emit('will-prevent-unload', e);
        report('unload-refused', { ignored: e.defaultPrevented });
        if (e.defaultPrevented) go();
      });
    }
    reload() {
      this.askToUnload(() => {
        report('page-reloaded');
        this.emit('did-navigate', newEvent(), this.mainFrame.url);
      });
    }
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

  class BrowserWindow extends EventEmitter {
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
    /** Loads through the handler registered with protocol.handle (the app:// scheme). */
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
    /** Emits 'close' (cancelable), then asks the page (beforeunload); when neither refuses, the window goes. */
    close() {
      if (this.destroyed) return;
      const e = newEvent();
      this.emit('close', e);
      if (e.defaultPrevented) return;
      this.webContents.askToUnload(() => this.destroy());
    }
    destroy() {
      if (this.destroyed) return;
      this.destroyed = true;
      windows.delete(this);
      this.webContents.destroyed = true;
      this.webContents.emit('destroyed');
      this.emit('closed');
      report('window-closed');
      if (windows.size === 0 && quitState === 'no') apps[0]?.emitEvent('window-all-closed', newEvent());
    }
  }

  return { App, BrowserWindow, protocol };
}
