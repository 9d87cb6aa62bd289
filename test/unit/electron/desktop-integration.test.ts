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
import type { MessageBoxOptions } from 'electron';
import { goesAnyway, guardClose, unsentDialog, type GuardedWindow } from '../../../src-main/electron/close-guard';
import { installQuitFlow } from '../../../src-main/electron/quit-flow';
import { createLifecycle, type StandInEvent } from '../../helpers/electron-runtime/lifecycle.mjs';

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
  /** What follows once the window has gone, in order: the service, the tray, Electron's own quit. */
  const AFTER_WINDOW = [
    'window closed',
    'service closing',
    'tray disposed',
    'before-quit',
    'will-quit',
    'ipc disposed',
    'exit 0',
  ];

  /** The question as the test sees it: its options, and the answer the test gives. */
  interface Question {
    options: MessageBoxOptions;
    signal: AbortSignal;
    answer(response: number): void;
  }

  /**
   * The flow on the stand-in runtime's lifecycle (the one that runs the built main.js), with
   * one window wired as main.ts and window.ts wire it (its close hides it to the tray unless
   * quitting; the close guard asks before a page with unsaved decisions goes); `steps` is what
   * happened, in order. `page.unsent` is how many decisions the page holds unsaved: its
   * beforeunload refuses while there are any.
   */
  function setUp(close: () => Promise<void>) {
    const steps: string[] = [];
    const { App, BrowserWindow } = createLifecycle({
      exit: (code) => steps.push(`exit ${code}`),
      report: (ev, details) => {
        if (ev === 'unload-refused') steps.push(details?.ignored ? 'page refusal ignored' : 'page refused');
      },
    });
    const app = Object.assign(new App(), { steps });
    app.on('before-quit', () => steps.push('before-quit'));
    app.on('will-quit', () => steps.push('will-quit'));
    const win = new BrowserWindow();
    win.on('closed', () => steps.push('window closed'));
    const page = { unsent: 0 };
    win.webContents.beforeUnload = () => page.unsent > 0;
    const log: string[] = [];
    const questions: Question[] = [];
    const guard = guardClose({
      window: win as unknown as GuardedWindow,
      unsent: () => page.unsent,
      ask: (options, signal) =>
        new Promise<number>((resolve) => {
          steps.push('asked');
          // As Electron's message box: an aborted one answers as if cancelled.
          signal.addEventListener('abort', () => resolve(options.cancelId ?? 0));
          questions.push({ options, signal, answer: resolve });
        }),
      show: () => steps.push('window shown'),
      beforeDestroy: () => steps.push('bounds saved'),
      log: (level, text) => log.push(`${level}: ${text}`),
    });
    const calls = { leave: 0, close: 0, afterWindows: 0 };
    let tray = true;
    const flow = installQuitFlow({
      app,
      leave: (force) => {
        calls.leave++;
        return guard.leave(force);
      },
      afterLeave: () => {
        tray = false;
        steps.push('tray disposed');
      },
      close: () => {
        calls.close++;
        steps.push('service closing');
        return close();
      },
      afterWindows: () => {
        calls.afterWindows++;
        app.steps.push('ipc disposed');
      },
      log: (level, text) => log.push(`${level}: ${text}`),
      timeoutMs: 15_000,
    });
    // window.ts: closing hides to the tray unless quitting; a real close lets the guard know.
    win.on('close', (e: StandInEvent) => {
      if (!flow.quitting) {
        e.preventDefault();
        win.hide();
        steps.push('window hidden');
      } else guard.closing();
    });
    /** Pushes a new count as the page reports it (ipc.ts → main.ts → the guard). */
    const report = (n: number) => {
      page.unsent = n;
      guard.unsentChanged(n);
    };
    return { app, win, page, report, log, calls, flow, questions, hasTray: () => tray, guard };
  }

  it('quitting twice closes the service once; IPC goes after the windows', async () => {
    let release!: () => void;
    const { app, calls, flow } = setUp(() => new Promise<void>((r) => (release = r)));
    app.quit();
    app.quit();
    // Electron emits before-quit on a later turn.
    await vi.waitFor(() => expect(app.steps.filter((s) => s === 'before-quit')).toHaveLength(2));
    await vi.waitFor(() => expect(calls.close).toBe(1));
    expect(flow.quitting).toBe(true);
    expect(calls).toEqual({ leave: 1, close: 1, afterWindows: 0 });
    release();
    await vi.waitFor(() => expect(app.steps.at(-1)).toBe('exit 0'));
    expect(calls).toEqual({ leave: 1, close: 1, afterWindows: 1 });
    // Two asks held while closing, the third (the flow's own) goes through; the tray goes
    // once the window has.
    // The page is asked (it has a beforeunload handler) and answers on a later turn.
    expect(app.steps).toEqual(['before-quit', 'before-quit', ...AFTER_WINDOW]);
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
      await vi.waitFor(() => expect(app.steps.at(-1)).toBe('exit 0'));
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

  it('a page holding unsaved review decisions: Quit asks first; Wait keeps the window, the tray and the service, and a later Quit asks again', async () => {
    const t = setUp(() => Promise.resolve());
    t.page.unsent = 2;
    t.app.quit();
    await vi.waitFor(() => expect(t.questions).toHaveLength(1));
    expect(t.questions[0]!.options).toMatchObject({
      message: '2 review decisions are still being saved.',
      buttons: ['Wait', 'Quit anyway'],
      defaultId: 0,
      cancelId: 0,
    });
    // Nothing is taken down while the person is asked; the window is brought to the front.
    expect(t.app.steps).toEqual(['before-quit', 'window shown', 'asked', 'page refused']);
    expect(t.hasTray()).toBe(true);
    expect(t.flow.quitting).toBe(true);
    // A second Quit meanwhile (the tray's, the dock's) opens no second question.
    t.app.quit();
    await vi.waitFor(() => expect(t.app.steps.filter((s) => s === 'before-quit')).toHaveLength(2));
    expect(t.questions).toHaveLength(1);
    expect(t.log.at(-1)).toBe('info: quit (quit) while the window is asked: waiting for that answer');

    t.questions[0]!.answer(0);
    await vi.waitFor(() => expect(t.flow.quitting).toBe(false));
    expect(t.log.at(-1)).toBe(
      'info: quit cancelled (quit): the person chose to wait: 2 review decisions still being saved; the app keeps running',
    );
    expect(t.win.isDestroyed()).toBe(false);
    expect(t.hasTray()).toBe(true);
    expect(t.calls).toEqual({ leave: 1, close: 0, afterWindows: 0 });
    // Running again: the window's close hides it to the tray, and the page is not asked.
    t.win.close();
    expect(t.app.steps.at(-1)).toBe('window hidden');

    t.app.quit();
    await vi.waitFor(() => expect(t.questions).toHaveLength(2));
    t.questions[1]!.answer(1);
    await vi.waitFor(() => expect(t.app.steps.at(-1)).toBe('exit 0'));
    expect(t.log).toContain('warn: quit anyway: 2 review decisions not saved are lost');
    // The page's refusal is ignored once; the service and the tray go after the window.
    expect(t.app.steps.slice(t.app.steps.lastIndexOf('page refused'))).toEqual([
      'page refused',
      'page refusal ignored',
      ...AFTER_WINDOW,
    ]);
    expect(t.calls).toEqual({ leave: 2, close: 1, afterWindows: 1 });
  });

  it('decisions saved while the question is open: it closes by itself and the quit goes on', async () => {
    const t = setUp(() => Promise.resolve());
    t.page.unsent = 1;
    t.app.quit();
    await vi.waitFor(() => expect(t.questions).toHaveLength(1));
    expect(t.questions[0]!.options.message).toBe('1 review decision is still being saved.');
    t.report(1);
    expect(t.questions[0]!.signal.aborted).toBe(false);
    t.report(0);
    expect(t.questions[0]!.signal.aborted).toBe(true);
    await vi.waitFor(() => expect(t.app.steps.at(-1)).toBe('exit 0'));
    expect(t.app.steps).toContain('window closed');
    expect(t.questions).toHaveLength(1);
  });

  it('a session end cannot wait for a person: the window goes without asking, what it lost is logged', async () => {
    const t = setUp(() => Promise.resolve());
    t.page.unsent = 3;
    t.flow.quitNow('session end');
    await vi.waitFor(() => expect(t.app.steps.at(-1)).toBe('exit 0'));
    expect(t.questions).toHaveLength(0);
    expect(t.app.steps.slice(0, 4)).toEqual(['bounds saved', 'window closed', 'service closing', 'tray disposed']);
    expect(t.log).toContain('warn: the window closes without asking: 3 review decisions not saved are lost');

    // A session end while the question of a Quit is open: the question goes, so does the window.
    const u = setUp(() => Promise.resolve());
    u.page.unsent = 1;
    u.app.quit();
    await vi.waitFor(() => expect(u.questions).toHaveLength(1));
    u.flow.quitNow('session end');
    await vi.waitFor(() => expect(u.app.steps.at(-1)).toBe('exit 0'));
    expect(u.questions[0]!.signal.aborted).toBe(true);
    expect(u.questions).toHaveLength(1);
    expect(u.calls).toEqual({ leave: 2, close: 1, afterWindows: 1 });
  });

  it('a reload of a page holding unsaved decisions asks too; a Quit meanwhile asks again, for the quit', async () => {
    const t = setUp(() => Promise.resolve());
    t.page.unsent = 1;
    t.win.webContents.reload();
    await vi.waitFor(() => expect(t.questions).toHaveLength(1));
    expect(t.questions[0]!.options.buttons).toEqual(['Wait', 'Reload anyway']);
    t.questions[0]!.answer(0);
    await vi.waitFor(() => expect(t.log.at(-1)).toMatch(/^info: the window stays \(reload cancelled\)/));
    expect(t.app.steps).not.toContain('page-reloaded');

    t.win.webContents.reload();
    await vi.waitFor(() => expect(t.questions).toHaveLength(2));
    t.app.quit();
    await vi.waitFor(() => expect(t.questions).toHaveLength(3));
    expect(t.questions[1]!.signal.aborted).toBe(true);
    expect(t.questions[2]!.options.buttons).toEqual(['Wait', 'Quit anyway']);
    t.questions[2]!.answer(1);
    await vi.waitFor(() => expect(t.app.steps.at(-1)).toBe('exit 0'));
  });
});

describe('the question before unsaved review decisions are lost', () => {
  it('names how many, says what Wait and going anyway mean; Wait is the default and the cancel', () => {
    expect(unsentDialog(3, 'quit')).toEqual({
      type: 'warning',
      title: 'Blocklift',
      message: '3 review decisions are still being saved.',
      detail:
        'If Blocklift quits now, they are lost and the labels keep their earlier state. ' +
        'If they are saved while this message is open, Blocklift quits then. Wait keeps Blocklift open.',
      buttons: ['Wait', 'Quit anyway'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    });
    expect(unsentDialog(1, 'quit').message).toBe('1 review decision is still being saved.');
    expect(unsentDialog(1, 'quit').detail).toMatch(/^If Blocklift quits now, it is lost/);
    // The page refused before its count arrived: no number rather than a wrong one.
    expect(unsentDialog(0, 'quit').message).toBe('Review decisions are still being saved.');
    expect(unsentDialog(2, 'reload')).toMatchObject({
      buttons: ['Wait', 'Reload anyway'],
      detail: expect.stringMatching(/^If the page reloads now, they are lost/),
    });
    expect([0, 1, -1].map(goesAnyway)).toEqual([false, true, false]);
  });
});
