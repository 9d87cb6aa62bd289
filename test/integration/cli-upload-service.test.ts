import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildFop } from '../../src-main/protocol/fops';
import { signUploadToken } from '../../src-main/protocol/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppService } from '../../src-main/service/app-service';
import type { Schedule } from '../../src-main/shared/schedule';
import { jsonLines, runCli } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * `blocklift upload` goes through the app service: the stored upload schedule holds it as it
 * holds the app's, and the Fmgr task an upload's policy starts (persistentOps) is tracked.
 */

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

describe('blocklift upload with persistentOps in its token policy', () => {
  it('prints the Fmgr task the upload started, and the app tracks it (origin upload)', async () => {
    // A token provider that signs with the emulator's keys and asks for a copy after the upload.
    const tokens = http.createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const key = q.get('key')!;
      const copy = buildFop({
        op: 'copy',
        srcBucket: emu.bucket,
        srcKey: key,
        bucket: emu.bucket,
        key: `copies/${key}`,
      });
      const token = signUploadToken(emu.config.accessKey, emu.config.secretKey, {
        scope: `${q.get('bucket')}:${key}`,
        deadline: Date.now() + 600_000,
        persistentOps: `copy/${copy}`,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }));
    });
    await new Promise<void>((r) => tokens.listen(0, '127.0.0.1', r));
    try {
      const dataDir = path.join(dir, 'ops-data');
      await writeFile(path.join(dir, 'ops.bin'), Buffer.alloc(20_000, 5));
      const r = await runCli(['upload', 'ops.bin', '--bucket', emu.bucket, '--key', 'ops.bin', '--json'], {
        cwd: dir,
        env: {
          BLOCKLIFT_DATA: dataDir,
          BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
          BLOCKLIFT_MGR_URL: emu.mgrUrl,
          BLOCKLIFT_TOKEN_URL: `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`,
          HOME: dir,
        },
      });
      expect(r.code, r.stderr).toBe(0);
      const [line] = jsonLines<{ status: string; persistentId?: string }>(r.stdout);
      expect(line).toMatchObject({ status: 'done', persistentId: expect.any(String) });
      const db = new Database(path.join(dataDir, 'blocklift.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT origin FROM fmgr_tasks WHERE persistent_id = ?').all(line!.persistentId)).toEqual([
          { origin: 'upload' },
        ]);
      } finally {
        db.close();
      }
    } finally {
      tokens.closeAllConnections();
      await new Promise<void>((r) => tokens.close(() => r()));
    }
  }, 120_000);
});
