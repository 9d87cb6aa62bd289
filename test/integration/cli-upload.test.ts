import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient } from '../../src-main/protocol/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/blocklift.mjs');
const MiB = 1024 * 1024;

let emu: TestEmulator;
let dir: string;
let mgr: MgrClient;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-'));
  mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
});
afterAll(async () => {
  mgr.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI; with killAfterMs, SIGKILLs it then (if still running), counted from when the
 * queue lock file `startWhen` names this run's process (on a busy machine starting the
 * process alone can take seconds, and a kill before the run opened its queue tests nothing).
 */
function cli(
  args: string[],
  opts: { killAfterMs?: number; startWhen?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'upload', ...args], {
      cwd: dir,
      env: {
        ...process.env,
        BLOCKLIFT_DATA: path.join(dir, 'data'), // never the real home
        BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
        BLOCKLIFT_AK: emu.config.accessKey,
        BLOCKLIFT_SK: emu.config.secretKey,
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const armKill = () => {
      if (ended || opts.killAfterMs === undefined) return;
      if (opts.startWhen !== undefined && !lockedBy(opts.startWhen, child.pid)) timer = setTimeout(armKill, 20);
      else timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    };
    armKill();
    child.on('error', reject);
    child.on('close', (code, signal) => {
      ended = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** True when the queue lock file holds `pid` (service/queue-lock.ts writes {pid, command}). */
function lockedBy(lockFile: string, pid: number | undefined): boolean {
  try {
    return (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid?: number }).pid === pid;
  } catch {
    return false;
  }
}

async function download(key: string): Promise<Buffer> {
  const r = await mgr.download(emu.objectUrl(emu.bucket, key));
  expect(r.status).toBe(200);
  return r.body;
}

const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');

describe('blocklift upload', () => {
  it('uploads a directory tree with --prefix, one JSON line per file, exit 0', async () => {
    await mkdir(path.join(dir, 'tree/sub'), { recursive: true });
    const a = randomBytes(5 * MiB + 3);
    const b = Buffer.from('hello world');
    await writeFile(path.join(dir, 'tree/a.bin'), a);
    await writeFile(path.join(dir, 'tree/sub/b.txt'), b);
    const r = await cli([
      'tree',
      '--bucket',
      emu.bucket,
      '--prefix',
      'up/',
      '--json',
      '--db',
      'tree.db',
      '--var',
      'who=me',
      '--mime',
      'text/x-test',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; hash: string; size: number; status: string; verified: boolean });
    expect(lines.map((l) => l.key).sort()).toEqual(['up/a.bin', 'up/sub/b.txt']);
    expect(lines.every((l) => l.status === 'done' && l.verified === true)).toBe(true);
    expect(lines.find((l) => l.key === 'up/sub/b.txt')!.hash).toBe('FiqubDXJT8-0FdvpX0CLnOke6Ebt');
    expect(sha1(await download('up/a.bin'))).toBe(sha1(a));
    expect(emu.objects.stat(emu.bucket, 'up/sub/b.txt')!.mimeType).toBe('text/x-test');

    // The same command again: nothing changed, so nothing is sent; each file says so.
    const putTime = emu.objects.stat(emu.bucket, 'up/a.bin')!.putTime;
    const again = await cli(['tree', '--bucket', emu.bucket, '--prefix', 'up/', '--json', '--db', 'tree.db']);
    expect(again.code).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { status: string }).status),
    ).toEqual(['unchanged', 'unchanged']);
    expect(emu.objects.stat(emu.bucket, 'up/a.bin')!.putTime).toBe(putTime);

    // Another database does not know them: the default conflict policy skips existing keys.
    const other = await cli(['tree', '--bucket', emu.bucket, '--prefix', 'up/', '--json', '--db', 'other.db']);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('"status":"skipped"');
  });

  it('exits non-zero with a clear message for bad flags, a wrong secret and a missing path', async () => {
    const noBucket = await cli(['tree']);
    expect(noBucket.code).toBe(2);
    expect(noBucket.stderr).toContain('--bucket is required');
    const missing = await cli(['nope.bin', '--bucket', emu.bucket]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    const badBlock = await cli(['tree', '--bucket', emu.bucket, '--block-size', '6']);
    expect(badBlock.code).toBe(2);
    expect(badBlock.stderr).toContain('multiple of 4');
    const wrong = await cli(
      ['tree/sub/b.txt', '--bucket', emu.bucket, '--key', 'w.txt', '--json', '--db', 'wrong.db'],
      { env: { BLOCKLIFT_SK: 'not-the-secret' } },
    );
    expect(wrong.code).toBe(1);
    // the last line is the file's outcome (a small file's one request may be announced as retried with a fresh token first)
    const line = JSON.parse(wrong.stdout.trim().split('\n').at(-1)!) as {
      status: string;
      error: { code: string; message: string };
    };
    expect(line.status).toBe('failed');
    expect(line.error.code).toBe('token-rejected');
  });

  it('SIGKILLed at random points many times, the same command resumes: chunk bytes the service took in ≤ size + kills × blocks in flight × chunk + a block per block whose spent ctx the service refused, the object is exact', async () => {
    const size = 24 * MiB + 777;
    const BLOCK_BYTES = 4 * MiB;
    const blocksOfFile = Math.ceil(size / BLOCK_BYTES);
    const data = randomBytes(size);
    await writeFile(path.join(dir, 'big.bin'), data);
    const CHUNK_BYTES = 256 * 1024;
    const CONCURRENCY = 3;
    const BLOCKS_IN_FLIGHT = 2 * CONCURRENCY; // upload.ts: maxBlocksPerFile = 2 × --concurrency
    // What the emulator took in (mkblk, bput, body bytes) during this test alone.
    const countsBefore = emu.uploadCounts();
    const args = [
      'big.bin',
      '--bucket',
      emu.bucket,
      '--key',
      'big.bin',
      '--db',
      'kill.db',
      '--chunk-size',
      '256',
      '--limit',
      '3072',
      '--concurrency',
      String(CONCURRENCY),
      '--overwrite',
      '--json',
    ];
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const batches = new Set<string>();
    let kills = 0;
    let committedSeen = 0;
    let lastOffsets = new Map<number, number>();
    let wentBack = 0;
    const lockFile = path.join(dir, 'kill.db.lock');
    let finished: Run | undefined;
    let finishedWhileClosing = false;
    for (let i = 0; i < 10; i++) {
      const r = await cli(args, { killAfterMs: 1200 + Math.floor(rand() * 1800), startWhen: lockFile });
      if (r.signal !== 'SIGKILL') {
        finished = r;
        break;
      }
      // On a busy machine start-up alone can outlast the delay: a run killed before it
      // created the database proves nothing, so it is not counted.
      if (!existsSync(path.join(dir, 'kill.db'))) continue;
      kills++;
      const db = new Database(path.join(dir, 'kill.db'), { readonly: true });
      try {
        const t = db.prepare("SELECT id, batch, state FROM transfers WHERE key = 'big.bin'").all() as Array<{
          id: number;
          batch: string | null;
          state: string;
        }>;
        expect(t).toHaveLength(1); // one transfer, continued run after run
        // Killed while closing, after the upload ended: it finished (a next run with --overwrite would send it again).
        if (t[0]!.state === 'done') {
          finishedWhileClosing = true;
          if (t[0]!.batch) batches.add(t[0]!.batch);
          break;
        }
        if (t[0]!.batch) batches.add(t[0]!.batch);
        const rows = db.prepare('SELECT idx, next_offset FROM blocks WHERE transfer_id = ?').all(t[0]!.id) as Array<{
          idx: number;
          next_offset: number;
        }>;
        const offsets = new Map(rows.map((row) => [row.idx, row.next_offset]));
        // A block's committed offset goes back only when the kill fell between the service
        // accepting a chunk and the client committing its reply: the stored ctx is then used
        // up, the service answers 401 (and counts the block), and that block starts over
        // (protocol-notes).
        for (const [idx, before] of lastOffsets) if ((offsets.get(idx) ?? 0) < before) wentBack++;
        lastOffsets = offsets;
        committedSeen = Math.max(
          committedSeen,
          rows.reduce((n, row) => n + row.next_offset, 0),
        );
      } finally {
        db.close();
      }
    }
    // Run to the end unless a run already finished (--overwrite sends a finished file again).
    const final = finished ?? (finishedWhileClosing ? undefined : await cli(args));
    if (final) {
      // stdout too: with --json a failed file is reported there, and a rare exit 1 seen under load had an empty stderr
      expect(final.code, `stderr: ${final.stderr}\nstdout: ${final.stdout}`).toBe(0);
      expect(final.stdout).toContain('"status":"done"');
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    expect(committedSeen).toBeGreaterThan(0);
    expect(batches.size).toBe(1); // the file did not change: never started over
    // A resume, not a restart, as the service saw it. A kill cuts, per block in flight, one
    // chunk, sent again (kills × blocks in flight × chunk in all); and it may cut the ctx chain
    // of a block whose chunk the service took but whose reply the client never kept: the
    // client's next bput of it is refused as using a spent ctx, and that block starts again
    // (its bytes so far, at most one block, sent again). The service counts the blocks so refused.
    const counts = emu.uploadCounts();
    const chunkBytes = counts.chunkBytes - countsBefore.chunkBytes;
    const cutChains = counts.spentCtxBlocks - countsBefore.spentCtxBlocks;
    const startedAgain = counts.mkblk - countsBefore.mkblk - blocksOfFile;
    const figures = JSON.stringify({ size, chunkBytes, kills, cutChains, startedAgain, wentBack });
    expect(cutChains, figures).toBeGreaterThanOrEqual(wentBack); // each block seen going back was refused first
    expect(startedAgain, figures).toBeGreaterThanOrEqual(cutChains); // each block refused so was started again
    expect(startedAgain, figures).toBeLessThanOrEqual(kills * BLOCKS_IN_FLIGHT);
    expect(chunkBytes, figures).toBeGreaterThanOrEqual(size);
    expect(chunkBytes, figures).toBeLessThanOrEqual(
      size + kills * BLOCKS_IN_FLIGHT * CHUNK_BYTES + cutChains * BLOCK_BYTES,
    );
    expect(sha1(await download('big.bin'))).toBe(sha1(data));
    // Up to eleven runs of the command, each started from scratch (tsx, SQLite): on a busy
    // machine that alone takes longer than the default minute.
  }, 240_000);

  it('a 579 upload (stored, callback failed) is done but "verified": false in --json and NOT VERIFIED in text', async () => {
    const faulty = await startTestEmulator({
      faults: { seed: 1, errors: [{ rate: 1, status: 579, endpoints: ['mkfile', 'form'] }] },
    });
    try {
      await writeFile(path.join(dir, 'cb.txt'), 'stored but not verified');
      const env = { BLOCKLIFT_UPLOAD_URL: faulty.uploadUrl };
      const j = await cli(['cb.txt', '--bucket', faulty.bucket, '--key', 'cb.txt', '--json', '--db', 'cb.db'], { env });
      expect(j.code, j.stderr).toBe(0);
      const line = JSON.parse(j.stdout.trim()) as { status: string; verified: boolean; warning?: string };
      expect(line.status).toBe('done');
      expect(line.verified).toBe(false);
      expect(line.warning).toMatch(/hash not returned/);
      const t = await cli(['cb.txt', '--bucket', faulty.bucket, '--key', 'cb2.txt', '--db', 'cb2.db'], { env });
      expect(t.code, t.stderr).toBe(0);
      expect(t.stdout).toMatch(/^done +cb2\.txt .*NOT VERIFIED.*hash not returned/m);
    } finally {
      await faulty.close();
    }
  });

  it('symbolic links inside a directory are skipped with one line each saying why (text and --json)', async () => {
    await mkdir(path.join(dir, 'links'), { recursive: true });
    await writeFile(path.join(dir, 'links/real.txt'), 'real');
    await symlink(path.join(dir, 'links/real.txt'), path.join(dir, 'links/ln.txt'));
    await symlink(path.join(dir, 'links'), path.join(dir, 'links/loop'));
    const j = await cli(['links', '--bucket', emu.bucket, '--prefix', 'ln/', '--json', '--db', 'links.db']);
    expect(j.code, j.stderr).toBe(0);
    const lines = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path?: string; key?: string; status: string; reason?: string });
    const skipped = lines.filter((l) => l.reason !== undefined);
    expect(skipped.map((l) => path.basename(l.path!)).sort()).toEqual(['ln.txt', 'loop']);
    expect(skipped.every((l) => l.status === 'skipped' && /symbolic link/.test(l.reason!))).toBe(true);
    expect(lines.filter((l) => l.key !== undefined).map((l) => l.key)).toEqual(['ln/real.txt']);
    const t = await cli(['links', '--bucket', emu.bucket, '--prefix', 'ln/', '--db', 'links.db']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout.match(/^skipped +\S+(ln\.txt|loop): symbolic link/gm)).toHaveLength(2);
  });

  it('a file changed between runs starts over with a new batch and uploads the new content', async () => {
    const v1 = randomBytes(12 * MiB);
    await writeFile(path.join(dir, 'chg.bin'), v1);
    const args = [
      'chg.bin',
      '--bucket',
      emu.bucket,
      '--key',
      'chg.bin',
      '--db',
      'chg.db',
      '--chunk-size',
      '256',
      '--limit',
      '4096',
      '--json',
    ];
    const killed = await cli(args, { killAfterMs: 2000, startWhen: path.join(dir, 'chg.db.lock') });
    expect(killed.signal).toBe('SIGKILL');
    const v2 = randomBytes(12 * MiB + 5);
    await writeFile(path.join(dir, 'chg.bin'), v2);
    const r = await cli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(sha1(await download('chg.bin'))).toBe(sha1(v2));
  });
});
