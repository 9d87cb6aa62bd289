import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const BIN = path.resolve(__dirname, '../../../bin/blocklift.mjs');

let emu: TestEmulator;
let dir: string;
let folder: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-cli-watch-')));
  folder = path.join(dir, 'inbox');
  await mkdir(folder);
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

interface Watch {
  child: ChildProcessWithoutNullStreams;
  lines: Array<Record<string, unknown>>;
  stderr: () => string;
  until(cond: () => boolean, what: string): Promise<void>;
  stop(): Promise<number | null>;
}

function watch(args: string[]): Watch {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'watch',
      folder,
      '--bucket',
      emu.bucket,
      '--prefix',
      'in/',
      '--db',
      path.join(dir, 'db', 'app.db'),
      '--json',
      '--stability-ms',
      '200',
      ...args,
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
        BLOCKLIFT_MGR_URL: emu.mgrUrl,
        BLOCKLIFT_AK: emu.config.accessKey,
        BLOCKLIFT_SK: emu.config.secretKey,
      },
    },
  );
  const lines: Array<Record<string, unknown>> = [];
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      lines.push(JSON.parse(out.slice(0, i)) as Record<string, unknown>);
      out = out.slice(i + 1);
    }
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return {
    child,
    lines,
    stderr: () => err,
    async until(cond, what) {
      const t0 = Date.now();
      while (!cond()) {
        if (Date.now() - t0 > 20_000) throw new Error(`timed out waiting for ${what}; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('blocklift watch', () => {
  it('uploads what appears, one JSON line per file; the same --db continues without re-uploading', async () => {
    await writeFile(path.join(folder, 'first.txt'), 'first');
    await utimes(path.join(folder, 'first.txt'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const w = watch([]);
    try {
      await w.until(() => w.stderr().includes('reconciled'), 'the first scan');
      await writeFile(path.join(folder, 'second.txt'), 'second');
      await w.until(() => w.lines.length >= 2, 'two uploads');
    } finally {
      expect(await w.stop()).toBe(130); // interrupted
    }
    const byPath = Object.fromEntries(w.lines.map((l) => [l.path, l]));
    expect(byPath['first.txt']).toEqual({
      path: 'first.txt',
      key: 'in/first.txt',
      hash: etagOfBuffer(Buffer.from('first')),
      size: 5,
      status: 'uploaded',
    });
    expect(byPath['second.txt']).toMatchObject({ key: 'in/second.txt', status: 'uploaded', size: 6 });
    expect(emu.objects.stat(emu.bucket, 'in/second.txt')?.hash).toBe(etagOfBuffer(Buffer.from('second')));

    // Dry run of the same folder and database: nothing to do.
    const dry = watch(['--dry-run']);
    await dry.until(() => dry.lines.length >= 1, 'the plan');
    expect(dry.lines[0]).toMatchObject({ type: 'plan', newFiles: 0, unchangedFiles: 2, filesToUpload: 0 });

    // Run again: the index says both are uploaded, nothing is sent.
    const again = watch([]);
    try {
      await again.until(() => again.stderr().includes('reconciled'), 'the second scan');
      await new Promise((r) => setTimeout(r, 500));
      expect(again.lines).toEqual([]);
      expect(again.stderr()).toMatch(/0 new, 0 changed, 2 unchanged/);
    } finally {
      expect(await again.stop()).toBe(130);
    }
  });

  it('with --analyse-videos, an uploaded video gets a VCA job whose labels are printed; other files do not', async () => {
    const w = watch(['--analyse-videos', '--download-domain', `${emu.downloadBaseUrl}/${emu.bucket}`]);
    try {
      await w.until(() => w.stderr().includes('reconciled'), 'the first scan');
      await writeFile(path.join(folder, 'clip.mp4'), 'not really a video, but the emulator can fetch it');
      await writeFile(path.join(folder, 'clip.txt'), 'a note');
      await w.until(() => w.lines.some((l) => 'vcaJob' in l), 'the analysis of clip.mp4');
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      expect(await w.stop()).toBe(130); // interrupted
    }
    const jobs = w.lines.filter((l) => 'vcaJob' in l);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      source: `${emu.downloadBaseUrl}/${emu.bucket}/in/clip.mp4`,
      state: 'analysis succeeded',
    });
    expect((jobs[0]!.labels as unknown[]).length).toBeGreaterThan(0);
    expect(
      w.lines
        .filter((l) => l.status === 'uploaded')
        .map((l) => l.path)
        .sort(),
    ).toEqual(['clip.mp4', 'clip.txt']);
  });

  it('refuses bad input with a clear message and exit code 2', async () => {
    const w = watch(['--conflict', 'sometimes']);
    const code = await new Promise<number | null>((r) => w.child.on('close', r));
    expect(code).toBe(2);
    expect(w.stderr()).toMatch(/option conflict/);
    const inside = spawn(
      process.execPath,
      [BIN, 'watch', path.join(dir, 'db'), '--bucket', 'b', '--db', path.join(dir, 'db', 'app.db'), '--dry-run'],
      { cwd: dir },
    );
    let err = '';
    inside.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await new Promise((r) => inside.on('close', r))).toBe(2);
    expect(err).toMatch(/data folder/);
    const noDomain = watch(['--analyse-videos']);
    expect(await new Promise<number | null>((r) => noDomain.child.on('close', r))).toBe(2);
    expect(noDomain.stderr()).toMatch(/--download-domain/);
  });
});
