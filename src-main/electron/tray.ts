import { app, Menu, Notification, powerSaveBlocker, Tray, type BrowserWindow } from 'electron';
import type { DoorBackend } from '../service/door-backend';
import type { AppEventMessage, Settings } from '../shared/contract';
import { DesktopStatus, type DesktopView } from './desktop-status';

export interface TrayOptions {
  backend: DoorBackend;
  icon: string;
  window: () => BrowserWindow | undefined;
  showWindow: () => void;
  quit: () => void;
  settings: Settings | null;
}

/**
 * Applies DesktopStatus's decisions to the desktop: the tray icon's tooltip and menu (open,
 * pause all or resume all, quit), native notifications, the taskbar/dock progress, the
 * power-save blocker while uploading (when the keepAwake setting is on) and launch at login.
 */
export function startTray(opts: TrayOptions): { dispose(): void } {
  const status = new DesktopStatus(opts.settings);
  const tray = new Tray(opts.icon);
  let blocker: number | null = null;
  let shown: string | null = null;
  const api = opts.backend;

  const render = (view: DesktopView) => {
    const key = JSON.stringify([view.tooltip, view.canPause, view.canResume]);
    if (key !== shown) {
      shown = key;
      tray.setToolTip(view.tooltip);
      tray.setContextMenu(
        Menu.buildFromTemplate([
          { label: view.tooltip.replace(/^Blocklift — /, ''), enabled: false },
          { type: 'separator' },
          { label: 'Open Blocklift', click: opts.showWindow },
          { label: 'Pause all', enabled: view.canPause, click: () => void api.transfers.pause({ all: true }) },
          { label: 'Resume all', enabled: view.canResume, click: () => void api.transfers.resume({ all: true }) },
          { type: 'separator' },
          { label: 'Quit', click: opts.quit },
        ]),
      );
    }
    const win = opts.window();
    if (win && !win.isDestroyed()) win.setProgressBar(view.progress);
    if (view.keepAwake && blocker === null) blocker = powerSaveBlocker.start('prevent-app-suspension');
    if (!view.keepAwake && blocker !== null) {
      powerSaveBlocker.stop(blocker);
      blocker = null;
    }
  };

  const applySettings = (s: Settings) => {
    if (app.getLoginItemSettings().openAtLogin !== s.launchAtLogin)
      app.setLoginItemSettings({ openAtLogin: s.launchAtLogin });
  };
  if (opts.settings) applySettings(opts.settings);

  tray.on('click', opts.showWindow);
  render(status.view());
  const unsubscribe = opts.backend.on((e: AppEventMessage) => {
    for (const n of status.apply(e))
      if (Notification.isSupported()) new Notification({ title: n.title, body: n.body, icon: opts.icon }).show();
    if (e.name === 'settings') applySettings(e.payload);
    render(status.view());
  });
  return {
    dispose() {
      unsubscribe();
      if (blocker !== null) powerSaveBlocker.stop(blocker);
      tray.destroy();
    },
  };
}
