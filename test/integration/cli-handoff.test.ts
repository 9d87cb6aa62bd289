import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferPage, WatchRootView } from '../../src-main/shared/contract';
import type { FmgrTaskView, VcaJobView } from '../../src-main/shared/task-views';
import { DOOR_FILE, readDoorFile } from '../../src-main/service/door-file';
import { startServe, type ServeApp } from '../e2e/serve-app';
import { jsonLines, runCli, runStart } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Issue 11, "one data folder means the CLI and a running app meet on one queue": a real
 * `blocklift serve` and a real `blocklift upload` child on one data folder. The upload is
 * handed to the app (it shows in the app's queue and completes there); a door file left by
 * an app that is gone, or that does not answer, is ignored and the CLI uploads itself.
 */

let emu: TestEmulator;
let tmp: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-handoff-')));
});
afterAll(async () => {
  await emu?.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Line {
  key?: string;
  status: string;
  verified?: boolean;
}

/** Waits (generously: a busy machine) until `pred` holds. */
async function until(pred: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function flagsEnv(dataDir: string): Record<string, string> & { BLOCKLIFT_DATA: string } {
  return {
    BLOCKLIFT_DATA: dataDir,
    BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
    HOME: tmp,
  };
}

describe('blocklift upload with a running app on the same data folder', () => {
  let app: ServeApp | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('upload, fmgr and watch hand their work to the app: it is in the app queue, done there (no account flags: the app default account); Ctrl-C stops following, not the work: the upload ends in the app, the folder stays watched by it', async () => {
    app = await startServe();
    const door = readDoorFile(app.dataDir);
    expect(door).toMatchObject({ pid: expect.any(Number), db: path.join(app.dataDir, 'blocklift.db') });
    expect(statSync(path.join(app.dataDir, DOOR_FILE)).mode & 0o777).toBe(0o600);

    const work = path.join(tmp, 'work');
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, 'a.txt'), 'to the running app');
    // No account flags: the app's own default account (its embedded emulator's Local one).
    const plain = await runCli(['upload', 'a.txt', '--bucket', 'local', '--key', 'handed/a.txt', '--json'], {
      cwd: work,
      env: { BLOCKLIFT_DATA: app.dataDir, HOME: tmp },
    });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(`handed to the Blocklift app running at ${door!.url}`);
    expect(jsonLines<Line>(plain.stdout)).toEqual([
      expect.objectContaining({ key: 'handed/a.txt', status: 'done', verified: true }),
    ]);
    const page = await app.api<TransferPage>('transfers.list', { text: 'handed/a.txt' });
    expect(page.rows.map((r) => [r.key, r.state, r.source, r.localPath])).toEqual([
      ['handed/a.txt', 'done', 'cli', path.join(work, 'a.txt')],
    ]);

    // With the flags of another service: the account is added to the app, the upload goes there.
    await writeFile(path.join(work, 'b.txt'), 'through an account of the flags');
    const flagged = await runCli(['upload', 'b.txt', '--bucket', emu.bucket, '--key', 'handed/b.txt', '--json'], {
      cwd: work,
      env: flagsEnv(app.dataDir),
    });
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(jsonLines<Line>(flagged.stdout)).toEqual([expect.objectContaining({ key: 'handed/b.txt', status: 'done' })]);
    expect(await readFile(emu.objects.contentPath(emu.bucket, 'handed/b.txt')!, 'utf8')).toBe(
      'through an account of the flags',
    );
    const again = await app.api<TransferPage>('transfers.list', { text: 'handed/b.txt' });
    expect(again.rows.map((r) => [r.state, r.source])).toEqual([['done', 'cli']]);

    // Ctrl-C stops following, not the upload: it is the app's and ends there.
    await app.api('settings.set', { bandwidthLimit: 64 * 1024 });
    await writeFile(path.join(work, 'slow.bin'), Buffer.alloc(2 * 1024 * 1024, 9));
    let err = '';
    let stopped = false;
    const slow = await runCli(['upload', 'slow.bin', '--bucket', 'local', '--key', 'handed/slow.bin'], {
      cwd: work,
      env: { BLOCKLIFT_DATA: app.dataDir, HOME: tmp },
      onSpawn: (child) =>
        child.stderr!.on('data', (d: Buffer) => {
          err += String(d);
          if (!stopped && err.includes('handed to')) stopped = child.kill('SIGINT');
        }),
    });
    expect(slow.code, slow.stderr).toBe(130);
    expect(slow.stderr).toMatch(/stopped following; the upload goes on in the running app/);
    await app.api('settings.set', { bandwidthLimit: null });
    await until(async () => {
      const page = await app!.api<TransferPage>('transfers.list', { text: 'handed/slow.bin' });
      return page.rows.some((r) => r.state === 'done');
    }, 'the app finishes the upload the command stopped following');

    // fmgr: the task is submitted and followed by the app (it is in the app's task list).
    const copy = await runCli(
      ['fmgr', 'copy', '--from', `${emu.bucket}:handed/b.txt`, '--bucket', emu.bucket, '--key', 'handed/c.txt'],
      { cwd: work, env: { ...flagsEnv(app.dataDir), BLOCKLIFT_MGR_URL: emu.mgrUrl } },
    );
    expect(copy.code, copy.stderr).toBe(0);
    const tasks = await app.api<FmgrTaskView[]>('fmgr.list', {});
    expect(tasks.map((t) => t.persistentId)).toContain(copy.stdout.trim());

    // watch: the folder is added to the app; Ctrl-C stops following, the app goes on watching.
    const folder = path.join(tmp, 'watched');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'one.txt'), 'one');
    let out = '';
    let interrupted = false;
    const watched = await runCli(
      ['watch', folder, '--bucket', 'local', '--prefix', 'w/', '--stability-ms', '0', '--json'],
      {
        cwd: work,
        env: { BLOCKLIFT_DATA: app.dataDir, HOME: tmp },
        onSpawn: (child) =>
          child.stdout!.on('data', (d: Buffer) => {
            out += String(d);
            if (!interrupted && out.includes('"status":"uploaded"')) interrupted = child.kill('SIGINT');
          }),
      },
    );
    expect(watched.code, watched.stderr).toBe(130);
    expect(jsonLines<Line & { key: string }>(watched.stdout)).toEqual([
      expect.objectContaining({ key: 'w/one.txt', status: 'uploaded' }),
    ]);
    expect(watched.stderr).toMatch(/goes on watching the folder/);
    const roots = await app.api<WatchRootView[]>('roots.list');
    expect(roots.map((r) => r.path)).toEqual([folder]);
    await writeFile(path.join(folder, 'two.txt'), 'two');
    await until(async () => {
      const page = await app!.api<TransferPage>('transfers.list', { text: 'w/two.txt' });
      return page.rows.some((r) => r.state === 'done');
    }, 'the app uploads a file the folder got after the command ended');

    // A second `npm start` on the data folder serve runs on starts no second app (which would
    // fail on the queue lock): it says where the running one is, with its token.
    const second = await runStart([], {
      cwd: work,
      env: { BLOCKLIFT_DATA: app.dataDir, HOME: tmp },
      killAfterMs: 120_000,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(
      `already running headless (blocklift serve) on this data folder; open:\n  ${app.loginUrl}`,
    );
    expect(second.stderr).toBe('');

    const dataDir = app.dataDir;
    await app.close();
    app = undefined;
    expect(existsSync(path.join(dataDir, DOOR_FILE))).toBe(false);
  }, 180_000);
});

describe('fmgr and vca with a running app and no account flags', () => {
  let app: ServeApp | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it("use the app's default account (its embedded emulator), as upload does, instead of asking for --mgr-url", async () => {
    app = await startServe();
    const work = path.join(tmp, 'no-flags');
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, 'a.txt'), 'copied by the app');
    const env = { BLOCKLIFT_DATA: app.dataDir, HOME: tmp };
    const up = await runCli(['upload', 'a.txt', '--bucket', 'local', '--key', 'nf/a.txt'], { cwd: work, env });
    expect(up.code, up.stderr).toBe(0);

    // Before, each of these stopped at "missing --mgr-url … e.g. http://127.0.0.1:8088" (exit 2):
    // the embedded emulator's port and keys are the app's, which a person cannot give.
    const copy = await runCli(['fmgr', 'copy', '--from', 'local:nf/a.txt', '--bucket', 'local', '--key', 'nf/b.txt'], {
      cwd: work,
      env,
    });
    expect(copy.code, copy.stderr).toBe(0);
    const persistentId = copy.stdout.trim();
    const tasks = await app.api<FmgrTaskView[]>('fmgr.list', {});
    expect(tasks.map((t) => t.persistentId)).toContain(persistentId);
    const status = await runCli(['fmgr', 'status', persistentId, '--wait', '--timeout', '60'], { cwd: work, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(persistentId);

    const page = await app.api<TransferPage>('transfers.list', { text: 'nf/a.txt' });
    const job = await app.api<VcaJobView>('vca.create', { source: { transferId: page.rows[0]!.id } });
    const show = await runCli(['vca', 'show', job.jobId, '--wait', '--timeout', '60'], { cwd: work, env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(job.jobId);
    // Still one job: the app's, not a second one recorded under another account.
    expect((await app.api<VcaJobView[]>('vca.list', {})).map((j) => j.jobId)).toEqual([job.jobId]);
  }, 180_000);
});

/** A process id that no longer runs: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((r) => child.once('exit', r));
  return pid;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

describe('a stale door file', () => {
  it('of a process that is gone, or of one whose door does not answer, is ignored: the CLI uploads itself', async () => {
    const dataDir = path.join(tmp, 'stale-data');
    await mkdir(dataDir, { recursive: true });
    const work = path.join(tmp, 'stale-work');
    await mkdir(work, { recursive: true });
    const db = path.join(dataDir, 'blocklift.db');
    const port = await closedPort();
    const cases = [
      { name: 'gone', pid: await deadPid() },
      // Alive (this test runner) but no door there.
      { name: 'silent', pid: process.pid },
    ];
    for (const c of cases) {
      await writeFile(
        path.join(dataDir, DOOR_FILE),
        JSON.stringify({ url: `http://127.0.0.1:${port}`, token: 'stale', pid: c.pid, db }),
        { mode: 0o600 },
      );
      await writeFile(path.join(work, `${c.name}.txt`), c.name);
      const r = await runCli(
        ['upload', `${c.name}.txt`, '--bucket', emu.bucket, '--key', `stale/${c.name}.txt`, '--json'],
        {
          cwd: work,
          env: flagsEnv(dataDir),
        },
      );
      expect(r.code, `${c.name}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toContain('handed to');
      expect(jsonLines<Line>(r.stdout)).toEqual([
        expect.objectContaining({ key: `stale/${c.name}.txt`, status: 'done' }),
      ]);
      expect(existsSync(db)).toBe(true);
    }
  }, 120_000);
});
