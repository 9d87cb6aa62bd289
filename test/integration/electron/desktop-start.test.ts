import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL } from '../../../src-main/shared/wire';
import { startStandIn, type StandInApp } from '../../helpers/electron-runtime/run';

/**
 * The built dist/electron/main.js started under plain Node with its real module graph and
 * the stand-in `electron` module (test/helpers/electron-runtime; the runtime cannot be
 * downloaded here): a package only in devDependencies (not packed by a release) and
 * @parcel/watcher (loaded when a folder is first watched with it, never at start) fail as
 * missing modules. The same start from the extracted package: package-check.test.ts.
 * Needs dist/ built (`node bin/build.mjs --if-stale`, as `npm test` does first).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TMP = path.join(ROOT, '.tmp');
const temps: string[] = [];
const apps: StandInApp[] = [];
const tempDir = (prefix: string) => {
  mkdirSync(TMP, { recursive: true });
  const d = mkdtempSync(path.join(TMP, prefix));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const a of apps.splice(0)) a.kill();
});
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function start(opts: Partial<Parameters<typeof startStandIn>[0]> = {}): StandInApp {
  const app = startStandIn({
    appPath: ROOT,
    dir: tempDir('bl-desktop-'),
    block: ['@parcel/watcher'],
    onlyDependencies: true,
    ...opts,
  });
  apps.push(app);
  return app;
}

describe('the built desktop main process on the stand-in runtime', () => {
  it('starts with only what a release packs, shows its window and tray, answers a verb over IPC and quits with 0', async () => {
    const app = start();
    const loaded = await app.waitFor('window-loaded');
    expect(loaded.url).toBe('app://renderer/index.html');
    expect(String(loaded.csp)).toContain("default-src 'self'");
    await app.waitFor('window-shown');
    await app.waitFor('tray-created');
    const reply = (await app.command('invoke', { channel: IPC_CALL_CHANNEL, args: ['app.status', undefined] })) as {
      value: { ok: boolean };
    };
    expect(reply.value.ok).toBe(true);
    await app.command('quit');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.stderr()).toBe('');
  });

  it('fails to start when its files load a module that is absent (the harness itself can fail)', async () => {
    // better-sqlite3 is loaded by main.js at start: refused, the start must fail.
    const app = start({ block: ['better-sqlite3'] });
    const { code } = await app.exited;
    expect(code).not.toBe(0);
    expect(app.stderr()).toMatch(/Cannot find package 'better-sqlite3'/);
    expect(app.events.some((e) => e.ev === 'window-loaded')).toBe(false);
  });
});
