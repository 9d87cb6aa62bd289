import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, jsonLines, runCli, type CliRunOptions } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/** Exit codes and messages of the command line (issue 11). */

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-msg-'));
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): CliRunOptions['env'] {
  return {
    BLOCKLIFT_DATA: path.join(dir, 'data'),
    BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
    BLOCKLIFT_MGR_URL: emu.mgrUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
    ...extra,
  };
}
const cli = (args: string[], opts: Partial<CliRunOptions> = {}) => runCli(args, { cwd: dir, env: env(), ...opts });

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('blocklift exit codes', () => {
  it('usage errors exit 2 (unknown option, missing argument, unknown command, missing --bucket); --help exits 0', async () => {
    await writeFile(path.join(dir, 'u.txt'), 'u');
    for (const args of [
      ['upload', 'u.txt', '--bucket', emu.bucket, '--bogus'],
      ['upload'],
      ['nosuchcommand'],
      ['upload', 'u.txt'],
      ['watch', dir],
      ['vca', 'create', 'http://127.0.0.1:1/v.mp4'],
      ['fmgr', 'copy', '--bogus'],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect((await cli(['--help'])).code).toBe(0);
    expect((await cli(['upload', '--help'])).code).toBe(0);
  });

  it('with --json an error is one JSON object on stdout too', async () => {
    const r = await cli(['upload', 'nope.bin', '--bucket', emu.bucket, '--json', '--db', 'j.db']);
    expect(r.code).toBe(2);
    expect(jsonLines(r.stdout)).toEqual([
      { error: { code: 'path-not-found', message: 'nope.bin does not exist' }, exitCode: 2 },
    ]);
    const usage = await cli(['upload', 'x', '--json', '--bogus']);
    expect(usage.code).toBe(2);
    expect(jsonLines<{ error: { code: string } }>(usage.stdout)[0]!.error.code).toBe('usage-unknownOption');
  });

  it("a value that breaks the contract's rule is refused before anything opens: the flag, the rule's words, its catalog code", async () => {
    const folder = path.join(dir, 'watched');
    await mkdir(folder, { recursive: true });
    const watch = await cli(['watch', folder, '--bucket', emu.bucket, '--key-template', '{nope}/{name}', '--json']);
    expect(watch.code).toBe(2);
    expect(jsonLines<{ error: { code: string; message: string } }>(watch.stdout)[0]!.error).toEqual({
      code: 'invalid-watch-options',
      message: expect.stringMatching(
        /^--key-template \(option keyTemplate\): unknown placeholder \{nope\}; known: \{relpath\}/,
      ),
    });
    const block = await cli(['upload', 'u.txt', '--bucket', emu.bucket, '--block-size', '6', '--json']);
    expect(block.code).toBe(2);
    expect(jsonLines<{ error: { code: string; message: string } }>(block.stdout)[0]!.error).toEqual({
      code: 'invalid-setting',
      message: '--block-size: the block size must be a multiple of 4 MiB up to 1 GiB, not 6 MiB',
    });
    const md5 = await cli(['fmgr', 'fetch', '--url', 'http://127.0.0.1:1/a', '--bucket', emu.bucket, '--md5', 'x']);
    expect(md5.code).toBe(2);
    expect(md5.stderr).toContain('fmgr fetch: fetch: md5 must be 32 hex digits, not "x"');
  });

  it('an unexpected error exits 70 with one line naming the log that holds the stack; --debug / BLOCKLIFT_DEBUG print the stack', async () => {
    await writeFile(path.join(dir, 'odd.txt'), 'odd');
    const args = ['upload', 'odd.txt', '--bucket', emu.bucket, '--db', 'odd.db'];
    expect((await cli(args)).code).toBe(0);
    const db = new Database(path.join(dir, 'odd.db'));
    db.prepare("UPDATE transfers SET options_json = '[1]'").run(); // a row written by another version
    db.close();
    const r = await cli(args);
    expect(r.code).toBe(70);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^blocklift: unexpected error: options of transfer \d+ is not a JSON object; details in /);
    // The log is in the command's data folder: the folder of --db here, --data's below; never BLOCKLIFT_DATA's then.
    const log = path.join(dir, 'logs', 'cli.log');
    expect(lines[0]).toContain(log);
    expect(await readFile(log, 'utf8')).toMatch(
      /StoreDataError: options of transfer \d+ is not a JSON object[^]*\n +at /,
    );
    const other = path.join(dir, 'other-data');
    const withData = await cli([...args, `--data=${other}`]);
    expect(withData.code).toBe(70);
    expect(withData.stderr).toContain(path.join(other, 'logs', 'cli.log'));
    expect(existsSync(path.join(other, 'logs', 'cli.log'))).toBe(true);
    expect(existsSync(path.join(dir, 'data', 'logs', 'cli.log'))).toBe(false);
    for (const debug of [
      { args: [...args, '--debug'], env: env() },
      { args, env: env({ BLOCKLIFT_DEBUG: '1' }) },
    ]) {
      const d = await cli(debug.args, { env: debug.env });
      expect(d.code).toBe(70);
      expect(d.stderr).toMatch(/\n +at /);
    }
  });
});

describe('blocklift messages', () => {
  it('fmgr status of an unknown persistentId: says so at once, stores nothing, no literal <persistentId>', async () => {
    const db = path.join(dir, 'st.db');
    const r = await cli(['fmgr', 'status', 'z0.no-such-task', '--wait', '--timeout', '3', '--db', db]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('no task "z0.no-such-task" could be found');
    expect(r.stderr).not.toContain('<persistentId>');
    expect(r.stderr).not.toMatch(/goes on/);
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT count(*) AS n FROM fmgr_tasks').get()).toEqual({ n: 0 });
    sqlite.close();
  });

  it('fmgr status --wait --timeout of a task still running names the real persistentId to look it up again', async () => {
    // A source that never answers keeps the emulator's fetch task processing.
    const hang = http.createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/slow.bin`;
      const db = path.join(dir, 'hang.db');
      const sub = await cli(['fmgr', 'fetch', '--url', url, '--bucket', emu.bucket, '--key', 'slow.bin', '--db', db]);
      expect(sub.code, sub.stderr).toBe(0);
      const id = sub.stdout.trim();
      const r = await cli(['fmgr', 'status', id, '--wait', '--timeout', '2', '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`see it with: blocklift fmgr status ${id}`);
      expect(r.stderr).not.toContain('<persistentId>');
    } finally {
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
    }
  });

  it('a file name with a newline is one line in plain output (escaped)', async () => {
    await mkdir(path.join(dir, 'nl'), { recursive: true });
    await writeFile(path.join(dir, 'nl', 'two\nlines.txt'), 'x');
    await writeFile(path.join(dir, 'nl', 'fine.txt'), 'x');
    const r = await cli(['upload', 'nl', '--bucket', emu.bucket, '--prefix', 'nl/', '--db', 'nl.db']);
    expect(r.code).toBe(1); // the name cannot be a key: left out, said, exit 1
    expect(r.stdout).toMatch(/^skipped +\S*nl\/two\\nlines\.txt: its key cannot be used: .*control character U\+000A/m);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('lines.txt'))).toEqual([]);
    expect(r.stdout).toMatch(/^done +nl\/fine\.txt /m);
  });

  it('a stopped upload host: upload says at once that it is retrying, why, and when the next attempt is', async () => {
    await writeFile(path.join(dir, 'r.txt'), 'retry me');
    const port = await closedPort();
    let seen = '';
    const r = await cli(['upload', 'r.txt', '--bucket', emu.bucket, '--db', 'r.db'], {
      env: env({ BLOCKLIFT_UPLOAD_URL: `http://127.0.0.1:${port}` }),
      killAfterMs: 120_000,
      onSpawn: (child) =>
        child.stderr!.on('data', (d: Buffer) => {
          seen += d.toString();
          if (/retrying/.test(seen) && !child.killed) child.kill('SIGINT'); // once: a second Ctrl-C ends at once
        }),
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /^retrying r\.txt: .*nothing listens at 127\.0\.0\.1:\d+.*; next attempt at \d\d:\d\d:\d\d$/m,
    );
  });

  it('watch during an outage says it is retrying too', async () => {
    const folder = path.join(dir, 'w');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'w.txt'), 'w');
    const port = await closedPort();
    let seen = '';
    const r = await cli(
      ['watch', folder, '--bucket', emu.bucket, '--db', path.join(dir, 'wdb', 'w.db'), '--yes', '--stability-ms', '0'],
      {
        env: env({ BLOCKLIFT_UPLOAD_URL: `http://127.0.0.1:${port}` }),
        killAfterMs: 120_000,
        onSpawn: (child) =>
          child.stderr!.on('data', (d: Buffer) => {
            seen += d.toString();
            if (/retrying/.test(seen) && !child.killed) child.kill('SIGINT'); // once: a second Ctrl-C ends at once
          }),
      },
    );
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(
      /^blocklift: retrying w\.txt: .*nothing listens at 127\.0\.0\.1:\d+.*; next attempt at \d\d:\d\d:\d\d$/m,
    );
  });

  it('upload on the database of a running watch says the queue is in use by it; the watch lets go when it ends', async () => {
    const folder = path.join(dir, 'lockw');
    await mkdir(folder, { recursive: true });
    const db = path.join(dir, 'lockdb', 'q.db');
    let watchPid = 0;
    let lockSeen!: () => void;
    const locked = new Promise<void>((r) => (lockSeen = r));
    const watching = cli(['watch', folder, '--bucket', emu.bucket, '--db', db, '--yes'], {
      killAfterMs: 120_000,
      onSpawn: (child) => {
        watchPid = child.pid!;
        child.stderr!.on('data', (d: Buffer) => /watching/.test(d.toString()) && lockSeen());
      },
    });
    await locked;
    await writeFile(path.join(dir, 'lk.txt'), 'l');
    const r = await cli(['upload', 'lk.txt', '--bucket', emu.bucket, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is in use by process ${watchPid} (blocklift watch)`);
    process.kill(watchPid, 'SIGINT');
    expect((await watching).code).toBe(130);
    expect((await cli(['upload', 'lk.txt', '--bucket', emu.bucket, '--db', db])).code).toBe(0);
  });

  it('on a terminal the progress bar total is the whole upload from the start, never goes back, never shows NaN or Infinity', async () => {
    await mkdir(path.join(dir, 'bar'), { recursive: true });
    for (const n of ['a', 'b', 'c']) await writeFile(path.join(dir, 'bar', `${n}.bin`), Buffer.alloc(1024 * 1024, 1));
    // `script` gives the command a terminal (the bar is drawn only on one).
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} upload bar --bucket ${emu.bucket} --prefix bar/ --db bar.db --concurrency 1 --limit 1024`;
    const r = await runScript(command, { cwd: dir, env: env() });
    expect(r.code, r.stdout).toBe(0);
    // Sizes and speed from the formatter the window and the tray use (1 MB = 1,024 KB).
    const bars = [
      ...r.stdout.matchAll(/(\d+)% \| ([\d.,]+ [KMG]?B)\/([\d.,]+ [KMG]?B) \| ([\d.,]+ [KMG]?B\/s) .*?ETA (\S+)/g),
    ];
    expect(bars.length, r.stdout).toBeGreaterThan(1);
    expect(new Set(bars.map((m) => m[3]))).toEqual(new Set(['3.0 MB']));
    const pct = bars.map((m) => Number(m[1]));
    expect(pct.every((p, i) => i === 0 || p >= pct[i - 1]!)).toBe(true);
    expect(r.stdout).not.toMatch(/NaN|Infinity|NFs/);
  });
});

/** Runs a shell command under `script`, which gives it a pseudo-terminal; stdout holds all it printed. */
function runScript(
  command: string,
  opts: { cwd: string; env: CliRunOptions['env'] },
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, COLUMNS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}
