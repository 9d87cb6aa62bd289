import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Result, TransferPage } from '../../src-main/shared/contract';
import { DOOR_FILE, readDoorFile, type DoorInfo } from '../../src-main/service/door-file';
import { API_HTTP_PREFIX, IPC_CALL_CHANNEL } from '../../src-main/shared/wire';
import { jsonLines, runCli, runStart } from '../helpers/cli';
import { fakeElectron } from '../unit/electron/fake-electron';
import { fakeApp, fakeElectronApp, FakeBrowserWindow } from '../unit/electron/fake-electron-app';

vi.mock('electron', () => fakeElectronApp);

/**
 * Issue 17, "one app, whichever door": the desktop app's main process (src-main/electron/main.ts,
 * its Electron runtime stood in for by fake-electron-app.ts: the runtime cannot be downloaded
 * here) opens the local door `blocklift serve` opens (headless/local-door.ts) and writes
 * door.json, so a real `blocklift upload` child on its data folder joins the desktop app's
 * queue, the one its window shows through IPC; a second `npm start` (bin/start.mjs) brings its
 * window to the front with the paths handed over instead of failing on the queue lock; quitting
 * removes door.json before the service closes.
 */

let tmp: string;
let dataDir: string;
let door: DoorInfo;

/** Waits (generously: a busy machine) until `pred` holds. */
async function until(pred: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const win = () => FakeBrowserWindow.all[0];

/** A verb called as the window's page calls it: through the IPC door. */
async function fromWindow<T>(method: string, input: unknown): Promise<T> {
  fakeElectron.currentSender = win()?.webContents ?? null;
  const r = (await fakeElectron.ipcRenderer.invoke(IPC_CALL_CHANNEL, method, input)) as Result<T>;
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.value;
}

beforeAll(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-desktop-')));
  dataDir = path.join(tmp, 'data');
  process.env.BLOCKLIFT_DATA = dataDir;
  fakeApp.appData = path.join(tmp, 'appdata');
  await import('../../src-main/electron/main');
  fakeApp.makeReady();
  // A failed start calls app.exit(1) (main.ts): no need to wait then.
  await until(
    () => fakeApp.exitCode !== null || (!!win()?.loaded && existsSync(path.join(dataDir, DOOR_FILE))),
    'the desktop app',
  );
  door = readDoorFile(dataDir)!;
});

afterAll(async () => {
  if (!fakeApp.ended) {
    fakeApp.quit();
    await until(() => fakeApp.ended, 'quit').catch(() => undefined);
  }
  delete process.env.BLOCKLIFT_DATA;
  await rm(tmp, { recursive: true, force: true });
});

describe('the desktop app opens the local door serve opens', () => {
  it('writes door.json (0600, its own pid and database, a loopback address) once the window shows', () => {
    expect(fakeApp.exitCode).toBeNull();
    expect(win()?.loaded).toBe('app://renderer/index.html');
    expect(door).toMatchObject({ pid: process.pid, db: path.join(dataDir, 'blocklift.db') });
    expect(door.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(door.token.length).toBeGreaterThanOrEqual(40);
    expect(statSync(path.join(dataDir, DOOR_FILE)).mode & 0o777).toBe(0o600);
  });

  it('`blocklift upload` next to the open window joins its queue: done there, shown by the window', async () => {
    const work = path.join(tmp, 'work');
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, 'a.txt'), 'to the desktop app');
    const run = await runCli(['upload', 'a.txt', '--bucket', 'local', '--key', 'desk/a.txt', '--json'], {
      cwd: work,
      env: { BLOCKLIFT_DATA: dataDir, HOME: tmp },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`handed to the Blocklift app running at ${door.url}`);
    expect(jsonLines<{ key: string; status: string }>(run.stdout)).toEqual([
      expect.objectContaining({ key: 'desk/a.txt', status: 'done' }),
    ]);
    // The window's own door (IPC) shows it: one queue, the desktop app's.
    const page = await fromWindow<TransferPage>('transfers.list', { text: 'desk/a.txt' });
    expect(page.rows.map((r) => [r.key, r.state, r.source, r.localPath])).toEqual([
      ['desk/a.txt', 'done', 'cli', path.join(work, 'a.txt')],
    ]);
    // And the door refuses a request without the token, as serve's does.
    const refused = await fetch(`${door.url}${API_HTTP_PREFIX}transfers.list`, { method: 'POST', body: '' });
    expect(refused.status).toBe(401);
  });

  it('a second `npm start` brings the window to the front and hands it its paths, instead of failing on the queue lock', async () => {
    const before = { shows: win()?.shows ?? 0, focuses: win()?.focuses ?? 0 };
    const file = path.join(tmp, 'second.txt');
    await writeFile(file, 'handed by a second start');
    const second = await runStart([file], {
      cwd: tmp,
      env: { BLOCKLIFT_DATA: dataDir, HOME: tmp },
      killAfterMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('already running: its window is brought to the front');
    expect(second.stderr).not.toMatch(/in use|no desktop window/);
    expect(win()?.shows).toBeGreaterThan(before.shows);
    expect(win()?.focuses).toBeGreaterThan(before.focuses);
    await until(async () => {
      const page = await fromWindow<TransferPage>('transfers.list', { text: 'second.txt' });
      return page.rows.some((r) => r.state === 'done' && r.localPath === file);
    }, 'the handed file uploaded by the desktop app');
  });

  it('quitting removes door.json before the service closes, and the app ends', async () => {
    fakeApp.quit();
    expect(existsSync(path.join(dataDir, DOOR_FILE))).toBe(false);
    await until(() => fakeApp.ended, 'the app to end');
    expect(fakeApp.exitCode).toBeNull();
    // Nothing answers at the old address any more.
    await expect(fetch(`${door.url}/`)).rejects.toThrow();
  });
});
