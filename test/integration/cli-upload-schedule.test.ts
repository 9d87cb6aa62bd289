import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppService } from '../../src-main/service/app-service';
import type { Schedule } from '../../src-main/shared/schedule';
import { jsonLines, runCli } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/** `blocklift upload` goes through the app service, so the stored upload schedule holds it as it holds the app's. */

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-sched-'));
});
afterAll(async () => {
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

async function storeSchedule(dataDir: string, schedule: Schedule | null): Promise<void> {
  const svc = await AppService.open({
    dataDir,
    embeddedEmulator: false,
    startEngine: false,
    resumeTrackers: false,
    startWatching: false,
    wakeDetector: false,
  });
  try {
    const r = await svc.settings.set({ schedule });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  } finally {
    await svc.close();
  }
}

describe('blocklift upload and the stored upload schedule', () => {
  it('inside a pause window the upload waits and says so; once the schedule allows it, the same command sends it', async () => {
    const dataDir = path.join(dir, 'data');
    await storeSchedule(dataDir, { outside: { action: 'pause' }, windows: [] });
    await writeFile(path.join(dir, 'held.txt'), 'held by the schedule');
    const args = ['upload', 'held.txt', '--bucket', emu.bucket, '--key', 'held.txt', '--json'];
    const env = {
      BLOCKLIFT_DATA: dataDir,
      BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
      BLOCKLIFT_AK: emu.config.accessKey,
      BLOCKLIFT_SK: emu.config.secretKey,
      HOME: dir,
    };
    let err = '';
    let interrupted = false;
    const held = await runCli(args, {
      cwd: dir,
      env,
      onSpawn: (child) =>
        child.stderr!.on('data', (d: Buffer) => {
          err += String(d);
          if (!interrupted && err.includes('"reason":"schedule"')) interrupted = child.kill('SIGINT');
        }),
    });
    expect(held.code, held.stderr).toBe(130);
    expect(
      jsonLines(
        held.stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .join('\n'),
      ),
    ).toContainEqual({
      status: 'waiting',
      reason: 'schedule',
    });
    expect(emu.objects.stat(emu.bucket, 'held.txt')).toBeUndefined();

    await storeSchedule(dataDir, null);
    const sent = await runCli(args, { cwd: dir, env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(jsonLines(sent.stdout)).toEqual([expect.objectContaining({ key: 'held.txt', status: 'done' })]);
  }, 120_000);
});
