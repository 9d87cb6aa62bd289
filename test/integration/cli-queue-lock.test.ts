import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppService } from '../../src-main/service/app-service';
import { QueueInUseError } from '../../src-main/service/queue-lock';
import { runCli, type CliRunOptions } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * The app (AppService: the desktop app, `blocklift serve`) and the CLI never run two engines
 * on one database: whichever starts second is refused, naming the first one's process.
 */

let emu: TestEmulator;
let dir: string;
let dataDir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-cli-lock-')));
  dataDir = path.join(dir, 'data');
  await mkdir(path.join(dir, 'inbox'));
  await writeFile(path.join(dir, 'a.bin'), Buffer.alloc(4 * 1024 * 1024, 3));
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function env(): CliRunOptions['env'] {
  return {
    BLOCKLIFT_DATA: dataDir,
    BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
    HOME: dir,
  };
}

const lockFile = () => path.join(dataDir, 'blocklift.db.lock');

describe('the queue lock between the app and the CLI', () => {
  it('while the app runs on a data folder, `blocklift upload` and `blocklift watch` on it exit 1 naming its process; after the app closes the lock is gone', async () => {
    const app = await AppService.open({ dataDir, embeddedEmulator: false, wakeDetector: false });
    try {
      expect(existsSync(lockFile())).toBe(true);
      const up = await runCli(['upload', 'a.bin', '--bucket', emu.bucket], { cwd: dir, env: env() });
      expect(up.code, up.stderr).toBe(1);
      expect(up.stderr).toContain(`in use by process ${process.pid}`);
      const w = await runCli(['watch', 'inbox', '--bucket', emu.bucket, '--yes'], { cwd: dir, env: env() });
      expect(w.code, w.stderr).toBe(1);
      expect(w.stderr).toContain(`in use by process ${process.pid}`);
      expect(emu.objects.list(emu.bucket, 'a.bin')).toHaveLength(0);
    } finally {
      await app.close();
    }
    expect(existsSync(lockFile())).toBe(false);
  });

  it('while a CLI upload runs, opening the app on the same data folder is refused with QueueInUseError naming the upload; once it ends the app opens', async () => {
    let pid = 0;
    const first = runCli(['upload', 'a.bin', '--bucket', emu.bucket, '--limit', '256', '--key', 'slow.bin'], {
      cwd: dir,
      env: env(),
      onSpawn: (c) => (pid = c.pid!),
    });
    while (!existsSync(lockFile())) await new Promise((r) => setTimeout(r, 20));
    const refused = await AppService.open({ dataDir, embeddedEmulator: false, wakeDetector: false }).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(QueueInUseError);
    expect((refused as QueueInUseError).pid).toBe(pid);
    expect((refused as QueueInUseError).message).toContain(`in use by process ${pid}`);
    process.kill(pid, 'SIGKILL');
    await first;
    // The killed upload's lock is stale: the app takes it over.
    const app = await AppService.open({ dataDir, embeddedEmulator: false, wakeDetector: false });
    await app.close();
    expect(existsSync(lockFile())).toBe(false);
  });
});
