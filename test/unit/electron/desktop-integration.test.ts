import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  argvPaths,
  autostartEntry,
  loginItemPlan,
  secondInstancePaths,
  trayIconFile,
  trayShownOnLinux,
} from '../../../src-main/electron/desktop-integration';
import { installQuitFlow } from '../../../src-main/electron/quit-flow';
import { createLifecycle } from '../../helpers/electron-runtime/lifecycle.mjs';

describe('the paths a command line hands to the desktop app', () => {
  it('skips flags and the value of a flag that takes one (npm start -- --port 8080 is not a file)', () => {
    const argv = ['/usr/bin/electron', '/app', '--port', '8080', '--data', 'd', '--verbose', 'a.txt', 'dir/b.mp4'];
    expect(argvPaths(argv, { isPackaged: false, cwd: '/home/me' })).toEqual(['/home/me/a.txt', '/home/me/dir/b.mp4']);
  });

  it('unpackaged, switches before the app folder are not taken for it', () => {
    expect(argvPaths(['electron', '--no-sandbox', '/app', 'a'], { isPackaged: false, cwd: '/w' })).toEqual(['/w/a']);
    expect(argvPaths(['electron', '/app'], { isPackaged: false, cwd: '/w' })).toEqual([]);
    expect(argvPaths(['electron'], { isPackaged: false, cwd: '/w' })).toEqual([]);
  });

  it("a packaged app's argv has no app path; an absolute path stays; after -- everything is a path", () => {
    expect(argvPaths(['/opt/Blocklift/blocklift', '/tmp/x', '--', '-odd'], { isPackaged: true, cwd: '/w' })).toEqual([
      '/tmp/x',
      '/w/-odd',
    ]);
  });

  it("a second launch's relative paths resolve against its own working directory, not the first instance's", () => {
    const argv = ['/opt/Blocklift/blocklift', 'clip.mp4'];
    expect(secondInstancePaths(argv, '/home/me/videos', undefined, true)).toEqual(['/home/me/videos/clip.mp4']);
    // What the second process resolved itself (additionalData) wins over Chromium's argv.
    expect(secondInstancePaths(argv, '/elsewhere', { paths: ['/home/me/videos/clip.mp4'] }, true)).toEqual([
      '/home/me/videos/clip.mp4',
    ]);
  });
});

describe('launch at login', () => {
  const base = { execPath: '/opt/Blocklift/blocklift', env: {}, home: '/home/me' };

  it('Linux: an XDG autostart entry in $XDG_CONFIG_HOME/autostart (else ~/.config/autostart)', () => {
    expect(loginItemPlan({ ...base, platform: 'linux', isPackaged: true })).toEqual({
      kind: 'autostart',
      file: '/home/me/.config/autostart/blocklift.desktop',
      exec: '/opt/Blocklift/blocklift',
    });
    expect(
      loginItemPlan({ ...base, platform: 'linux', isPackaged: true, env: { XDG_CONFIG_HOME: '/cfg' } }),
    ).toMatchObject({ file: '/cfg/autostart/blocklift.desktop' });
  });

  it('an AppImage registers its own file ($APPIMAGE), not the mount it runs from', () => {
    const env = { APPIMAGE: '/home/me/Apps/Blocklift-0.1.0-x86_64.AppImage' };
    expect(loginItemPlan({ ...base, platform: 'linux', isPackaged: true, env })).toMatchObject({ exec: env.APPIMAGE });
  });

  it('macOS and Windows: the OS login item; unpackaged (npm start): nothing, with the reason', () => {
    expect(loginItemPlan({ ...base, platform: 'darwin', isPackaged: true })).toEqual({ kind: 'os' });
    expect(loginItemPlan({ ...base, platform: 'win32', isPackaged: true })).toEqual({ kind: 'os' });
    const plan = loginItemPlan({ ...base, platform: 'win32', isPackaged: false, execPath: 'C:\\electron.exe' });
    expect(plan.kind).toBe('none');
  });

  it('the autostart entry quotes an Exec path with spaces as the Desktop Entry Specification says', () => {
    expect(autostartEntry('/opt/My Apps/blocklift')).toMatch(/^Exec="\/opt\/My Apps\/blocklift"$/m);
    expect(autostartEntry('/opt/Blocklift/blocklift')).toMatch(/^\[Desktop Entry\]\nType=Application\n/);
  });
});

describe('tray', () => {
  it('macOS uses the 16 pt template image, other systems the app icon', () => {
    expect(trayIconFile('darwin', '/d')).toBe(path.join('/d', 'trayTemplate.png'));
    expect(trayIconFile('win32', '/d')).toBe(path.join('/d', 'icon.png'));
    expect(trayIconFile('linux', '/d')).toBe(path.join('/d', 'icon.png'));
  });

  it('Linux: shown where a StatusNotifierWatcher is; not on GNOME without one', () => {
    expect(trayShownOnLinux({ env: { XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' }, watcherPresent: true })).toBe(true);
    expect(trayShownOnLinux({ env: { XDG_CURRENT_DESKTOP: 'GNOME' }, watcherPresent: false })).toBe(false);
    expect(trayShownOnLinux({ env: { XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' }, watcherPresent: null })).toBe(false);
    expect(trayShownOnLinux({ env: { XDG_CURRENT_DESKTOP: 'XFCE' }, watcherPresent: false })).toBe(true);
  });
});

describe('quit', () => {
  /**
   * The flow on the stand-in runtime's lifecycle (the one that runs the built main.js), with
   * one window; `steps` is what happened, in order.
   */
  function setUp(close: () => Promise<void>) {
    const steps: string[] = [];
    const { App, BrowserWindow } = createLifecycle({ exit: (code) => steps.push(`exit ${code}`) });
    const app = Object.assign(new App(), { steps });
    app.on('before-quit', () => steps.push('before-quit'));
    app.on('will-quit', () => steps.push('will-quit'));
    const win = new BrowserWindow();
    win.on('closed', () => steps.push('window closed'));
    const log: string[] = [];
    const calls = { leave: 0, close: 0, afterWindows: 0 };
    const flow = installQuitFlow({
      app,
      // As main.ts: the window really closes at once.
      leave: () => {
        calls.leave++;
        win.close();
      },
      close: () => {
        calls.close++;
        return close();
      },
      afterWindows: () => {
        calls.afterWindows++;
        app.steps.push('ipc disposed');
      },
      log: (level, text) => log.push(`${level}: ${text}`),
      timeoutMs: 15_000,
    });
    return { app, log, calls, flow };
  }

  it('quitting twice closes the service once; IPC goes after the windows', async () => {
    let release!: () => void;
    const { app, calls, flow } = setUp(() => new Promise<void>((r) => (release = r)));
    app.quit();
    app.quit();
    // Electron emits before-quit on a later turn.
    await vi.waitFor(() => expect(app.steps.filter((s) => s === 'before-quit')).toHaveLength(2));
    expect(flow.quitting).toBe(true);
    expect(calls).toEqual({ leave: 1, close: 1, afterWindows: 0 });
    release();
    await vi.waitFor(() => expect(app.steps.at(-1)).toBe('exit 0'));
    expect(calls).toEqual({ leave: 1, close: 1, afterWindows: 1 });
    // Two asks held while closing, the third (the flow's own) goes through.
    expect(app.steps).toEqual([
      'before-quit',
      'window closed',
      'before-quit',
      'before-quit',
      'will-quit',
      'ipc disposed',
      'exit 0',
    ]);
  });

  it('a service that never closes (a stuck chunk) does not hold Quit past the timeout', async () => {
    vi.useFakeTimers();
    try {
      const { app, log, calls } = setUp(() => new Promise<void>(() => undefined));
      app.quit();
      await vi.advanceTimersByTimeAsync(14_999);
      expect(app.steps).toContain('before-quit');
      expect(app.steps).not.toContain('exit 0');
      await vi.advanceTimersByTimeAsync(1);
      // The flow's own quit: Electron's before-quit on a later turn (no time passes).
      await vi.runOnlyPendingTimersAsync();
      expect(app.steps.at(-1)).toBe('exit 0');
      expect(calls.afterWindows).toBe(1);
      expect(log.at(-1)).toMatch(/^warn: the app service did not close in 15 s; quitting anyway/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('Windows session end (no before-quit) takes the same way out', async () => {
    const { app, calls, flow } = setUp(() => Promise.resolve());
    flow.quitNow('session end');
    expect(flow.quitting).toBe(true);
    await vi.waitFor(() => expect(app.steps.at(-1)).toBe('exit 0'));
    expect(calls).toEqual({ leave: 1, close: 1, afterWindows: 1 });
  });
});
