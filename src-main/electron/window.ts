import { readFileSync, writeFileSync } from 'node:fs';
import { BrowserWindow, screen, type Rectangle } from 'electron';
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
}

/**
 * The app's one window: sandboxed, context-isolated, no Node in the page, only the app's
 * own origin (navigation elsewhere and new windows are refused), its size and place saved to
 * boundsFile and restored. Closing it hides it: uploads go on in the tray.
 */
export function createAppWindow(opts: AppWindowOptions): BrowserWindow {
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
  win.on('close', (event) => {
    save();
    if (!opts.quitting()) {
      event.preventDefault();
      win.hide();
    }
  });
  return win;
}
