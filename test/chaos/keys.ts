import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TransferRequest } from '../../src-main/shared/models';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { spawnBlocklift, waitFor, type ChaosContext } from './context';
import { downloader, openEngineRig, settleAll, verifyDone } from './rig';

/**
 * Section 6: hostile keys and paths (`..`, absolute, NUL, very long, not UTF-8 on disk,
 * ending in '/') through the CLI (a child process) and the engine. Each ends in a clear
 * refusal (a code and a message, no stack trace) or a correct upload (downloaded and
 * compared); never a crash.
 */
const STACK = /\n\s+at .+:\d+:\d+\)?/;

interface CliCase {
  name: string;
  paths: (string | Buffer)[];
  flags: string[];
}

async function runCli(
  ctx: ChaosContext,
  emu: TestEmulator,
  dir: string,
  c: CliCase,
  download: (k: string) => Promise<Buffer>,
) {
  const { rec } = ctx;
  const args = [
    'upload',
    ...c.paths.map(String),
    '--bucket',
    emu.bucket,
    '--upload-url',
    emu.uploadUrl,
    '--db',
    path.join(dir, 'cli.db'),
    '--json',
    ...c.flags,
  ];
  const env = { ...process.env, BLOCKLIFT_AK: ctx.accessKey, BLOCKLIFT_SK: ctx.secretKey };
  const p = spawnBlocklift(ctx, args, { env, cwd: dir });
  let code: number | string | undefined;
  void p.exited.then((x) => (code = x));
  if (!(await waitFor(() => code !== undefined, 180_000))) {
    p.child.kill('SIGKILL');
    rec.fail(`CLI ${c.name}: still running after 180 s`);
    return;
  }
  rec.report.inputsTried++;
  const repro = `reproduce: blocklift ${args.map((a) => JSON.stringify(a)).join(' ')}`;
  // 0 all done or skipped, 1 some failed, 2 refused (usage); 70 is the CLI's unexpected error.
  if (![0, 1, 2].includes(code as number) || STACK.test(p.stderr()) || /unexpected error/.test(p.stderr())) {
    rec.fail(`CLI ${c.name}: crashed (exit ${code}): ${p.stderr().slice(0, 600)}; ${repro}`);
    return;
  }
  const lines = p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map(
      (l) =>
        JSON.parse(l) as {
          key?: string;
          path?: string;
          status: string;
          verified?: boolean;
          error?: unknown;
          reason?: string;
        },
    );
  if (lines.length === 0) {
    if (code === 0 || p.stderr().trim() === '')
      rec.fail(`CLI ${c.name}: exit ${code} with no result and no message; ${repro}`);
    else rec.note(`CLI ${c.name}: refused: ${p.stderr().trim().slice(0, 200)}`);
    ctx.errorsSeen.push(p.stderr());
    return;
  }
  for (const l of lines) {
    if (l.status === 'retrying') continue;
    if (l.status === 'done') {
      if (!l.verified || !l.key || !l.path) {
        rec.fail(`CLI ${c.name}: done but not verified: ${JSON.stringify(l)}; ${repro}`);
        continue;
      }
      const [local, remote] = await Promise.all([
        readFile(l.path),
        download(l.key).catch(() => Buffer.from('missing')),
      ]);
      if (!local.equals(remote)) {
        rec.report.lost++;
        rec.fail(
          `CLI ${c.name}: key ${JSON.stringify(l.key)} downloads ${remote.length} bytes that are not ${l.path}; ${repro}`,
        );
      } else {
        rec.verified(local.length);
        rec.note(
          `CLI ${c.name}: uploaded as ${JSON.stringify(l.key.length > 60 ? `${l.key.slice(0, 60)}…` : l.key)}, verified`,
        );
      }
    } else {
      const why = JSON.stringify(l.error ?? l.reason ?? '');
      if (why.length < 5) rec.fail(`CLI ${c.name}: ${l.status} without a reason: ${JSON.stringify(l)}; ${repro}`);
      else rec.note(`CLI ${c.name}: ${l.status}: ${why.slice(0, 200)}`);
      ctx.errorsSeen.push(why);
    }
  }
}

async function engineCases(
  ctx: ChaosContext,
  emu: TestEmulator,
  dir: string,
  file: string,
  download: (k: string) => Promise<Buffer>,
) {
  const { rec } = ctx;
  const rig = openEngineRig(ctx, {
    dir: path.join(dir, 'engine'),
    uploadUrl: emu.uploadUrl,
    now: () => emu.clock.now(),
  });
  const cases: Array<[string, Partial<TransferRequest>]> = [
    ['NUL in key', { key: 'a\u0000b' }],
    ['.. key', { key: '../../escape' }],
    ['absolute key', { key: '/etc/passwd' }],
    ['key of 1025 bytes', { key: 'k'.repeat(1025) }],
    ['key of 1024 bytes', { key: 'q'.repeat(1024) }],
    ['key ending in /', { key: 'eng/dir/' }],
    ['key "/"', { key: '/' }],
    ['empty key', { key: '' }],
    ['path with ..', { localPath: path.join(dir, 'sub', '..', path.basename(file)) }],
    ['path with NUL', { localPath: `${file}\u0000x` }],
    ['path not on disk (a lossy name)', { localPath: path.join(dir, 'bad\uFFFD\uFFFD.bin') }],
    ['relative path', { localPath: 'not/absolute.bin' }],
  ];
  try {
    for (const [name, over] of cases) {
      const req: TransferRequest = {
        accountId: rig.accountId,
        bucket: emu.bucket,
        key: `eng/${name}`,
        localPath: file,
        source: 'manual',
        options: { conflict: 'overwrite' },
        ...over,
      };
      rec.report.inputsTried++;
      let id: number;
      try {
        [id] = rig.engine.enqueue([req]) as [number];
      } catch (e) {
        const m = (e as Error).message;
        ctx.errorsSeen.push(m);
        if (!m || STACK.test(m)) rec.fail(`engine ${name}: enqueue threw without a clear message: ${String(e)}`);
        else rec.note(`engine ${name}: refused at enqueue: ${m.slice(0, 200)}`);
        continue;
      }
      const [s] = await settleAll(rig.engine, [id], 120_000);
      if (s!.state === 'done') {
        const v = await verifyDone(rig, s!, download).catch((e: Error) => ({ ok: false, bytes: 0, why: e.message }));
        if (v.ok) {
          rec.verified(v.bytes);
          rec.note(`engine ${name}: uploaded, verified`);
        } else {
          rec.report.lost++;
          rec.fail(`engine ${name}: done but ${v.why}`);
        }
      } else if (s!.state === 'failed' && s!.lastError?.code && s!.lastError.message) {
        ctx.errorsSeen.push(s!.lastError.message);
        rec.note(`engine ${name}: failed: ${s!.lastError.code}: ${s!.lastError.message.slice(0, 200)}`);
      } else rec.fail(`engine ${name}: ended ${s!.state} ${JSON.stringify(s!.lastError)}`);
    }
  } finally {
    await rig.close();
  }
}

export async function keysAndPaths(ctx: ChaosContext): Promise<void> {
  const dir = path.join(ctx.root, 'keys');
  const tree = path.join(dir, 'tree');
  await mkdir(path.join(dir, 'sub'), { recursive: true });
  await mkdir(tree, { recursive: true });
  const emu = await startTestEmulator({
    dataDir: path.join(dir, 'emulator'),
    accessKey: ctx.accessKey,
    secretKey: ctx.secretKey,
  });
  const download = downloader(emu.mgrUrl, (key) => emu.objectUrl(emu.bucket, key));
  try {
    const a = path.join(dir, 'a.bin');
    const b = path.join(dir, 'b.bin');
    await writeFile(a, randomBytes(1000));
    await writeFile(b, randomBytes(4 * 1024 * 1024 + 3));
    // A tree with a name that is not valid UTF-8, a 255-byte name and a plain file.
    await writeFile(Buffer.from(path.join(tree, 'bad-') + '\xff\xfe.bin', 'latin1'), randomBytes(10));
    await writeFile(path.join(tree, `${'n'.repeat(251)}.bin`), randomBytes(20));
    await writeFile(path.join(tree, 'plain.bin'), randomBytes(30));
    const cases: CliCase[] = [
      { name: 'key with ..', paths: [a], flags: ['--key', '../../escape'] },
      { name: 'absolute key', paths: [a], flags: ['--key', '/abs/key'] },
      { name: 'key of 1100 bytes', paths: [a], flags: ['--key', 'x'.repeat(1100)] },
      { name: 'key photos', paths: [a], flags: ['--key', 'kp/photos'] },
      { name: 'key photos/ (ends in /)', paths: [b], flags: ['--key', 'kp/photos/'] },
      { name: 'key /', paths: [a], flags: ['--key', '/', '--overwrite'] },
      { name: 'path with ..', paths: [path.join(dir, 'sub', '..', 'a.bin')], flags: ['--key', 'dotdot-path'] },
      { name: 'relative path', paths: ['a.bin'], flags: ['--key', 'relative-path'] },
      { name: 'missing path', paths: [path.join(dir, 'nope.bin')], flags: ['--key', 'nope'] },
      { name: 'tree with a non-UTF-8 name and a 255-byte name', paths: [tree], flags: ['--prefix', 'tree/'] },
      { name: 'prefix ending in //', paths: [tree], flags: ['--prefix', 'tree2//'] },
    ];
    for (const c of cases) await runCli(ctx, emu, dir, c, download);
    await engineCases(ctx, emu, dir, a, download);
  } finally {
    await emu.close();
  }
}
