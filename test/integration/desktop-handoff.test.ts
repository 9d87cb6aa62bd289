import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result, TransferPage } from '../../src-main/shared/contract';
import { DOOR_FILE, readDoorFile, type DoorInfo } from '../../src-main/service/door-file';
import { API_HTTP_PREFIX, IPC_CALL_CHANNEL } from '../../src-main/shared/wire';
import { jsonLines, runCli, runStart } from '../helpers/cli';
import { startStandIn, type StandInApp } from '../helpers/electron-runtime/run';

/**
 * Issue 17, "one app, whichever door": the desktop app's main process (the built
 * dist/electron/main.js with its real module graph, on the stand-in Electron runtime of
 * test/helpers/electron-runtime: the runtime cannot be downloaded here) opens the local door
 * `blocklift serve` opens (headless/local-door.ts) and writes door.json, so a real
 * `blocklift upload` child on its data folder joins the desktop app's queue, the one its
 * window shows through IPC; a second `npm start` (bin/start.mjs) from another folder brings
 * its window to the front with the paths handed over instead of failing on the queue lock;
 * quitting removes door.json before the service closes.
 * Needs dist/ built (`node bin/build.mjs --if-stale`, as `npm test` does first).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let tmp: string;
let dataDir: string;
let doorFile: string;
/** The database's write-ahead log: there while the service holds the database open. */
let walFile: string;
let door: DoorInfo;
let app: StandInApp;

const count = (ev: string) => app.events.filter((e) => e.ev === ev).length;

/** A verb called as the window's page calls it: through the IPC door. */
async function fromWindow<T>(method: string, input: unknown): Promise<T> {
  const r = (await app.command('invoke', { channel: IPC_CALL_CHANNEL, args: [method, input] })) as {
    value: Result<T>;
  };
  if (!r.value.ok) throw new Error(`${method}: ${r.value.error.message}`);
  return r.value.value;
}

/** Waiting on the app, which shares the cores with other tests: generous, the waits end as soon as it is so. */
const POLL = { timeout: 60_000, interval: 100 };

beforeAll(async () => {
  await mkdir(path.join(ROOT, '.tmp'), { recursive: true });
  tmp = await realpath(await mkdtemp(path.join(ROOT, '.tmp', 'bl-handoff-')));
  dataDir = path.join(tmp, 'app', 'data');
  doorFile = path.join(dataDir, DOOR_FILE);
  walFile = path.join(dataDir, 'blocklift.db-wal');
  app = startStandIn({
    appPath: ROOT,
    dir: path.join(tmp, 'app'),
    block: ['@parcel/watcher'],
    watch: [doorFile, walFile],
  });
  // A failed start exits 1 with its reason on stderr: the wait then fails with it. The local
  // door (door.json) opens before the window is created.
  await app.waitFor('window-loaded', undefined, 60_000);
  door = readDoorFile(dataDir)!;
}, 90_000);

afterAll(async () => {
  app?.kill();
  await app?.exited;
  await rm(tmp, { recursive: true, force: true });
});

describe('the desktop app opens the local door serve opens', () => {
  it('writes door.json (0600, its own pid and database, a loopback address) once the window shows', () => {
    expect(app.events.find((e) => e.ev === 'window-loaded')?.url).toBe('app://renderer/index.html');
    expect(door).toMatchObject({ pid: app.child.pid, db: path.join(dataDir, 'blocklift.db') });
    expect(door.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(door.token.length).toBeGreaterThanOrEqual(40);
    expect(statSync(doorFile).mode & 0o777).toBe(0o600);
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

  it('a second `npm start` from another folder brings the window to the front and hands it its paths, instead of failing on the queue lock', async () => {
    const before = { shows: count('window-shown'), focuses: count('window-focused') };
    const elsewhere = path.join(tmp, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    const file = path.join(elsewhere, 'second.txt');
    await writeFile(file, 'handed by a second start');
    const second = await runStart(['second.txt'], {
      cwd: elsewhere,
      env: { BLOCKLIFT_DATA: dataDir, HOME: tmp },
      killAfterMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('already running: its window is brought to the front');
    expect(second.stderr).not.toMatch(/in use|no desktop window/);
    await expect.poll(() => count('window-shown'), POLL).toBeGreaterThan(before.shows);
    await expect.poll(() => count('window-focused'), POLL).toBeGreaterThan(before.focuses);
    const uploaded = async () => {
      const page = await fromWindow<TransferPage>('transfers.list', { text: 'second.txt' });
      return page.rows.some((r) => r.state === 'done' && r.localPath === file);
    };
    await expect.poll(uploaded, POLL).toBe(true);
  });

  it('quitting removes door.json before the service closes, and the app ends with 0', async () => {
    await app.command('quit');
    // Held; the window is asked first (its page may hold unsaved review decisions, and the
    // person may choose to stay): the app still takes work from the command line meanwhile.
    const beforeQuit = await app.waitFor('app-event', (e) => e.name === 'before-quit');
    expect(beforeQuit.prevented).toBe(true);
    expect(beforeQuit.exists).toEqual({ [doorFile]: true, [walFile]: true });
    // Once the window has gone, door.json goes first: as the tray goes, the database is still open.
    const trayGone = await app.waitFor('tray-destroyed');
    expect(trayGone.exists).toEqual({ [doorFile]: false, [walFile]: true });
    expect(await app.exited).toEqual({ code: 0, signal: null });
    // The service closed its database (SQLite removes the write-ahead log at the last close).
    expect(existsSync(walFile)).toBe(false);
    expect(existsSync(doorFile)).toBe(false);
    // Nothing answers at the old address any more.
    await expect(fetch(`${door.url}/`)).rejects.toThrow();
  });
});
