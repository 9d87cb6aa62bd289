import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRunOptions } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/** Where the command line keeps its data, and the folders a watch must not take (issue 11). */

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-data-'));
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string | undefined> = {}): CliRunOptions['env'] {
  return {
    BLOCKLIFT_DATA: path.join(dir, 'data'),
    BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
    ...extra,
  };
}

describe('the data folder', () => {
  it('upload keeps its queue in the data folder (BLOCKLIFT_DATA, --data, else the per-user app-data folder), never in the working directory', async () => {
    const work = path.join(dir, 'work');
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, 'f.txt'), 'f');
    const args = ['upload', 'f.txt', '--bucket', emu.bucket, '--key', 'data/f.txt'];
    expect((await runCli(args, { cwd: work, env: env() })).code).toBe(0);
    expect(existsSync(path.join(dir, 'data', 'blocklift.db'))).toBe(true);
    expect(existsSync(path.join(work, '.blocklift'))).toBe(false);

    expect((await runCli([...args, '--data', path.join(dir, 'other')], { cwd: work, env: env() })).code).toBe(0);
    expect(existsSync(path.join(dir, 'other', 'blocklift.db'))).toBe(true);

    // No BLOCKLIFT_DATA: the OS's per-user folder under this (temporary) home.
    const home = path.join(dir, 'home');
    const r = await runCli(args, {
      cwd: work,
      env: { ...env({ HOME: home, XDG_DATA_HOME: undefined }), BLOCKLIFT_DATA: '' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(home, '.local', 'share', 'blocklift', 'blocklift.db'))).toBe(true);
  });

  it('the emulator keeps its data in emulator/ of the data folder by default', async () => {
    let stopped = false;
    const r = await runCli(['emulator', '--port', '0', '--json'], {
      cwd: dir,
      env: env(),
      killAfterMs: 120_000,
      onSpawn: (child) =>
        child.stdout!.on('data', () => {
          if (!stopped) child.kill('SIGTERM');
          stopped = true;
        }),
    });
    expect(r.signal).toBeNull();
    expect(existsSync(path.join(dir, 'data', 'emulator', 'emulator.db'))).toBe(true);
  });
});

describe('watch refuses a folder that holds an emulator data folder', () => {
  it('an emulator data folder inside the root, or the root inside one: exit 2 saying why', async () => {
    const root = path.join(dir, 'project');
    await mkdir(path.join(root, 'emu', 'objects'), { recursive: true });
    await writeFile(path.join(root, 'emu', 'emulator.db'), '');
    await writeFile(path.join(root, 'notes.txt'), 'n');
    for (const folder of [root, path.join(root, 'emu', 'objects')]) {
      const r = await runCli(['watch', folder, '--bucket', emu.bucket, '--db', path.join(dir, 'w', 'w.db'), '--yes'], {
        cwd: dir,
        env: env(),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`the emulator's data folder ${path.join(root, 'emu')}: watching it would upload`);
    }
  });
});
