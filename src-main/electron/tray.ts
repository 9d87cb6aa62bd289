import { Menu, Notification, powerSaveBlocker, Tray, type BrowserWindow } from 'electron';
import type { DoorBackend } from '../service/door-backend';
import type { AppEventMessage, Settings } from '../shared/contract';
import { DesktopStatus, type DesktopView, type TrayStatus } from './desktop-status';
import { applyLaunchAtLogin } from './login-item';

export interface TrayOptions {
  backend: DoorBackend;
  icon: string;
  window: () => BrowserWindow | undefined;
  showWindow: () => void;
  quit: () => void;
  settings: Settings | null;
  log?: (level: 'info' | 'warn', text: string) => void;
}

/**
 * The menu's status line: the state and the count, not the speed (that is in the tooltip),
 * so the menu is rebuilt only when what it offers changes, never under an open menu's cursor
 * because the speed moved.
 */
export function menuStatus(s: TrayStatus): string {
  switch (s.kind) {
    case 'idle':
      return 'Idle';
    case 'uploading':
      return `Uploading ${s.count}`;
    case 'paused':
      return `Paused (${s.count})`;
    case 'error':
      return `${s.failed} failed`;
  }
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
  let menuShown: string | null = null;
  let tooltipShown: string | null = null;
  const api = opts.backend;

  const render = (view: DesktopView) => {
    if (view.tooltip !== tooltipShown) {
      tooltipShown = view.tooltip;
      tray.setToolTip(view.tooltip);
    }
    const status = menuStatus(view.tray);
    const key = JSON.stringify([status, view.canPause, view.canResume]);
    if (key !== menuShown) {
      menuShown = key;
      tray.setContextMenu(
        Menu.buildFromTemplate([
          { label: status, enabled: false },
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
    try {
      const done = applyLaunchAtLogin(s.launchAtLogin);
      if (done) opts.log?.('info', done);
    } catch (e) {
      opts.log?.('warn', `launch at login could not be set: ${(e as Error)?.message ?? String(e)}`);
    }
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
