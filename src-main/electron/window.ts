import { readFileSync, writeFileSync } from 'node:fs';
import { BrowserWindow, dialog, screen, type Rectangle } from 'electron';
import { guardClose, type CloseGuard, type CloseGuardOptions } from './close-guard';
import { APP_ORIGIN } from './ipc';

export interface SavedBounds {
  x: number;
  y: number;
  width: number;
  height: number;
  maximized: boolean;
}

const DEFAULT_SIZE = { width: 1200, height: 800 };

/** Saved bounds that still fit on one of the displays (a monitor may have been unplugged), else null. */
export function usableBounds(saved: SavedBounds | null, workAreas: readonly Rectangle[]): SavedBounds | null {
  if (!saved || saved.width < 200 || saved.height < 150) return null;
  const visible = workAreas.some(
    (a) =>
      saved.x < a.x + a.width - 50 &&
      saved.x + saved.width > a.x + 50 &&
      saved.y >= a.y - 10 &&
      saved.y < a.y + a.height - 50,
  );
  return visible ? saved : null;
}

function readBounds(file: string): SavedBounds | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SavedBounds;
  } catch {
    return null;
  }
}

export interface AppWindowOptions {
  preload: string;
  boundsFile: string;
  icon: string;
  /** Whether closing should really close (quitting) or only hide to the tray. */
  quitting: () => boolean;
  /** The question before a page holding unsaved review decisions goes (close-guard.ts). */
  guard: Omit<CloseGuardOptions, 'window' | 'beforeDestroy' | 'ask'>;
}

/**
 * The app's one window: sandboxed, context-isolated, no Node in the page, only the app's
 * own origin (navigation elsewhere and new windows are refused), its size and place saved to
 * boundsFile and restored. Closing it hides it: uploads go on in the tray. When it really
 * closes (quitting), a page holding unsaved review decisions makes it ask first (the guard).
 */
export function createAppWindow(opts: AppWindowOptions): { window: BrowserWindow; guard: CloseGuard } {
  const saved = usableBounds(
    readBounds(opts.boundsFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const win = new BrowserWindow({
    ...(saved ? { x: saved.x, y: saved.y, width: saved.width, height: saved.height } : DEFAULT_SIZE),
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Blocklift',
    icon: opts.icon,
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  if (saved?.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  const contents = win.webContents;
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  const save = () => {
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    writeFileSync(opts.boundsFile, JSON.stringify({ ...b, maximized: win.isMaximized() }));
  };
  const guard = guardClose({
    ...opts.guard,
    window: win,
    beforeDestroy: save,
    // The window's own message box (a sheet on macOS), asynchronous: the main process goes on meanwhile.
    ask: async (options, signal) => (await dialog.showMessageBox(win, { ...options, signal })).response,
  });
  // Electron emits 'close' before the page's beforeunload: hiding to the tray never asks the page.
  win.on('close', (event) => {
    save();
    if (!opts.quitting()) {
      event.preventDefault();
      win.hide();
    } else guard.closing();
  });
  return { window: win, guard };
}
