import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Result, TransferPage } from '../../../src-main/shared/contract';
import { IPC_CALL_CHANNEL, IPC_UNSENT_CHANNEL } from '../../../src-main/shared/wire';
import { startStandIn, type StandInApp, type StandInOptions } from '../../helpers/electron-runtime/run';

/**
 * The desktop main process's behaviour on a desktop, shown on the stand-in runtime
 * (test/helpers/electron-runtime) with the built dist/electron/main.js, its real service and
 * data folder: a failed start in a dialog, a second launch from another folder, launch at
 * login on Linux, quitting twice, a Windows session end, closing the window where no tray is
 * shown, a page holding unsaved review decisions when Quit comes. What only a real desktop
 * shows is listed in src-main/electron/README.md.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const temps: string[] = [];
const apps: StandInApp[] = [];
const children: ChildProcess[] = [];
const tempDir = (prefix: string) => {
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const d = mkdtempSync(path.join(ROOT, '.tmp', prefix));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const a of apps.splice(0)) a.kill();
});
afterAll(() => {
  for (const c of children) c.kill();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function start(opts: Partial<StandInOptions> = {}): StandInApp {
  const app = startStandIn({
    appPath: ROOT,
    dir: opts.dir ?? tempDir('bl-desktop-'),
    block: ['@parcel/watcher'],
    ...opts,
  });
  apps.push(app);
  return app;
}

async function call<T>(app: StandInApp, method: string, input?: unknown): Promise<Result<T>> {
  const r = (await app.command('invoke', { channel: IPC_CALL_CHANNEL, args: [method, input] })) as { value: Result<T> };
  return r.value;
}

/** Waiting on the app, which shares two cores with other tests: generous, the waits end as soon as it is so. */
const POLL = { timeout: 30_000, interval: 50 };
const logText = (dir: string) => readFileSync(path.join(dir, 'data', 'logs', 'blocklift.log'), 'utf8');

describe('the desktop main process on the stand-in runtime', () => {
  it('a failed start is shown in a dialog (not only on stderr) and exits 1', async () => {
    const dir = tempDir('bl-desktop-');
    // The data folder cannot be created: a file is in its way.
    writeFileSync(path.join(dir, 'data'), 'not a folder');
    const app = start({ dir });
    const box = await app.waitFor('error-box');
    expect(box.title).toBe('Blocklift could not start');
    expect(String(box.content)).toMatch(/\S/);
    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(app.stderr()).toMatch(/^blocklift: the app could not start: /m);
  });

  it("a second launch from another folder hands over its paths resolved there; serve's --port 8080 is not a file", async () => {
    const dir = tempDir('bl-desktop-');
    const first = start({ dir, args: ['--port', '8080'] });
    await first.waitFor('window-loaded');
    const elsewhere = tempDir('bl-elsewhere-');
    writeFileSync(path.join(elsewhere, 'clip.txt'), 'hello');
    const second = start({ dir, cwd: elsewhere, args: ['--port', '8080', 'clip.txt'] });
    await second.waitFor('single-instance', (e) => e.first === false);
    expect(await second.exited).toEqual({ code: 0, signal: null });
    const queued = async () => {
      const page = await call<TransferPage>(first, 'transfers.list', {});
      return page.ok ? page.value.rows.map((r) => r.localPath) : page.error.code;
    };
    await expect.poll(queued, POLL).toEqual([path.join(elsewhere, 'clip.txt')]);
    await first.command('quit');
    expect((await first.exited).code).toBe(0);
  });

  it('launch at login on Linux (packaged): an XDG autostart entry written and removed; under npm start: none', async () => {
    const config = tempDir('bl-xdg-');
    const exe = '/opt/Blocklift/blocklift';
    const packaged = start({ packaged: true, env: { XDG_CONFIG_HOME: config, STANDIN_EXE: exe } });
    await packaged.waitFor('window-loaded');
    const entry = path.join(config, 'autostart', 'blocklift.desktop');
    expect((await call(packaged, 'settings.set', { launchAtLogin: true })).ok).toBe(true);
    await expect.poll(() => existsSync(entry), POLL).toBe(true);
    expect(readFileSync(entry, 'utf8')).toMatch(new RegExp(`^Exec=${exe}$`, 'm'));
    expect((await call(packaged, 'settings.set', { launchAtLogin: false })).ok).toBe(true);
    await expect.poll(() => existsSync(entry), POLL).toBe(false);
    // Linux has no OS login item: Electron's setLoginItemSettings is never called.
    expect(packaged.events.filter((e) => e.ev === 'login-item')).toEqual([]);
    await packaged.command('quit');
    await packaged.exited;

    const config2 = tempDir('bl-xdg-');
    const dir2 = tempDir('bl-desktop-');
    const unpackaged = start({ dir: dir2, env: { XDG_CONFIG_HOME: config2 } });
    await unpackaged.waitFor('window-loaded');
    expect((await call(unpackaged, 'settings.set', { launchAtLogin: true })).ok).toBe(true);
    await expect
      .poll(() => logText(dir2), POLL)
      .toMatch(/launch at login is only registered for the installed app \(not under npm start\)/);
    await unpackaged.command('quit');
    await unpackaged.exited;
    expect(existsSync(path.join(config2, 'autostart'))).toBe(false);
    expect(unpackaged.events.filter((e) => e.ev === 'login-item')).toEqual([]);
  });

  it('Quit twice: one close; the window goes first and the IPC handler only after it; exit 0', async () => {
    const dir = tempDir('bl-desktop-');
    const app = start({ dir });
    await app.waitFor('window-loaded');
    void app.command('quit');
    void app.command('quit');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    const order = app.events
      .map((e) => e.ev)
      .filter((e) => ['window-closed', 'ipc-remove-handler', 'exit'].includes(e));
    expect(order).toEqual(['window-closed', 'ipc-remove-handler', 'exit']);
    expect(app.events.find((e) => e.ev === 'ipc-remove-handler')?.windows).toBe(0);
    const log = logText(dir);
    expect(log.match(/quitting \(quit\)/g)).toHaveLength(1);
    expect(log).toMatch(/desktop app quit/);
  });

  it('a Windows session end (no before-quit) closes the window, not to the tray, and quits', async () => {
    const dir = tempDir('bl-desktop-');
    const app = start({ dir });
    await app.waitFor('window-loaded');
    await app.command('window-event', { name: 'session-end' });
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.events.some((e) => e.ev === 'window-hidden')).toBe(false);
    expect(logText(dir)).toMatch(/quitting \(session end\)[\s\S]*desktop app quit/);
  });

  describe('a page holding review decisions not saved yet', () => {
    /** The page's count, as it reports it and as its beforeunload refuses on it. */
    const page = (app: StandInApp, unsent: number) => app.command('page', { unsent, channel: IPC_UNSENT_CHANNEL });
    const boxes = (app: StandInApp) => app.events.filter((e) => e.ev === 'message-box');

    it('Quit asks on the window; Wait keeps the app, its tray and its service; a later Quit asks again and goes anyway', async () => {
      const dir = tempDir('bl-desktop-');
      const app = start({ dir, env: { XDG_CURRENT_DESKTOP: 'KDE' } });
      await app.waitFor('window-shown');
      await page(app, 2);
      void app.command('quit');
      const box = await app.waitFor('message-box');
      expect(box).toMatchObject({
        message: '2 review decisions are still being saved.',
        buttons: ['Wait', 'Quit anyway'],
        defaultId: 0,
        cancelId: 0,
        parent: 'window',
      });
      // A second Quit while it is open: no second question, nothing closes.
      await app.command('quit');
      await expect.poll(() => logText(dir), POLL).toMatch(/while the window is asked: waiting for that answer/);
      expect(boxes(app)).toHaveLength(1);

      await app.command('answer-message-box', { response: 0 });
      await expect
        .poll(() => logText(dir), POLL)
        .toMatch(/quit cancelled \(quit\): the person chose to wait: 2 review decisions still being saved/);
      expect(app.events.some((e) => ['window-closed', 'tray-destroyed', 'ipc-remove-handler'].includes(e.ev))).toBe(
        false,
      );
      // The service still answers; closing the window only hides it again, without asking.
      expect((await call(app, 'app.status')).ok).toBe(true);
      await expect.poll(() => logText(dir), POLL).toMatch(/tray icon shown: closing the window keeps the app/);
      await app.command('close-window');
      await app.waitFor('window-hidden');
      expect(boxes(app)).toHaveLength(1);

      void app.command('quit');
      await app.waitFor('message-box', (e) => e.open === 1 && boxes(app).length === 2);
      // The window is brought back from the tray to ask.
      expect(app.events.filter((e) => e.ev === 'window-shown').length).toBeGreaterThan(1);
      await app.command('answer-message-box', { response: 1 });
      expect(await app.exited).toEqual({ code: 0, signal: null });
      const order = app.events
        .map((e) => e.ev)
        .filter((e) => ['window-closed', 'tray-destroyed', 'ipc-remove-handler', 'exit'].includes(e));
      expect(order).toEqual(['window-closed', 'tray-destroyed', 'ipc-remove-handler', 'exit']);
      expect(logText(dir)).toMatch(/quit anyway: 2 review decisions not saved are lost[\s\S]*desktop app quit/);
    });

    it('saved while the question is open: it closes by itself and the app quits, nothing lost', async () => {
      const dir = tempDir('bl-desktop-');
      const app = start({ dir });
      await app.waitFor('window-shown');
      await page(app, 1);
      void app.command('quit');
      expect((await app.waitFor('message-box')).message).toBe('1 review decision is still being saved.');
      await page(app, 0);
      expect(await app.waitFor('message-box-closed')).toMatchObject({ by: 'abort' });
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(logText(dir)).toMatch(/saved while asking: the quit goes ahead[\s\S]*desktop app quit/);
    });

    it('a Windows session end does not wait for an answer: the window goes without asking, the loss logged', async () => {
      const dir = tempDir('bl-desktop-');
      const app = start({ dir });
      await app.waitFor('window-shown');
      await page(app, 3);
      await app.command('window-event', { name: 'session-end' });
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(boxes(app)).toHaveLength(0);
      expect(logText(dir)).toMatch(/the window closes without asking: 3 review decisions not saved are lost/);
    });
  });

  describe('closing the window', () => {
    let bus: { address: string; child: ChildProcess } | undefined;
    /** A real D-Bus session bus with no StatusNotifierWatcher on it (GNOME without AppIndicator). */
    async function sessionBus() {
      const child = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      children.push(child);
      const address = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
        child.on('error', reject);
      });
      return { address, child };
    }

    it('quits where no tray icon is shown (GNOME, no StatusNotifierWatcher on the bus)', async (ctx) => {
      if (!existsSync('/usr/bin/dbus-daemon'))
        ctx.skip('dbus-daemon is not installed (Debian package dbus-daemon): no session bus to ask');
      bus ??= await sessionBus();
      const dir = tempDir('bl-desktop-');
      const app = start({ dir, env: { XDG_CURRENT_DESKTOP: 'GNOME', DBUS_SESSION_BUS_ADDRESS: bus.address } });
      await app.waitFor('window-shown');
      await expect.poll(() => logText(dir), POLL).toMatch(/no tray icon shown here/);
      await app.command('close-window');
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(app.events.some((e) => e.ev === 'window-hidden')).toBe(false);
    });

    it('hides to the tray where one is shown, and the app goes on', async () => {
      const dir = tempDir('bl-desktop-');
      const app = start({ dir, env: { XDG_CURRENT_DESKTOP: 'KDE' } });
      await app.waitFor('window-shown');
      await expect.poll(() => logText(dir), POLL).toMatch(/tray icon shown: closing the window keeps the app/);
      await app.command('close-window');
      await app.waitFor('window-hidden');
      expect((await call(app, 'app.status')).ok).toBe(true);
      await app.command('quit');
      expect((await app.exited).code).toBe(0);
    });
  });
});
