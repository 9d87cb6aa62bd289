import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEY_BYTES } from '../../src-main/shared/keys';
import { jsonLines, runCli, type CliRunOptions } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/** The outcomes of `blocklift upload` a new user meets first (issue 11). */

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-out-'));
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): CliRunOptions['env'] {
  return {
    BLOCKLIFT_DATA: path.join(dir, 'data'),
    BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
    HOME: dir,
    ...extra,
  };
}
const upload = (args: string[], opts: Partial<CliRunOptions> = {}) =>
  runCli(['upload', ...args], { cwd: dir, env: env(), ...opts });
const content = async (key: string) => readFile(emu.objects.contentPath(emu.bucket, key)!, 'utf8');

interface Line {
  key?: string;
  path?: string;
  status: string;
  reason?: string;
  code?: string;
  message?: string;
}

describe('blocklift upload: outcomes', () => {
  it('a second run of files already uploaded says so in plain words, counted right', async () => {
    await mkdir(path.join(dir, 'twice'), { recursive: true });
    await writeFile(path.join(dir, 'twice', 'a.txt'), 'a');
    await writeFile(path.join(dir, 'twice', 'b.txt'), 'b');
    const args = ['twice', '--bucket', emu.bucket, '--prefix', 'twice/', '--db', 'twice.db'];
    const first = await upload(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^2 of 2 files uploaded or skipped$/m);
    const again = await upload(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^nothing to send, 2 files already uploaded$/m);
    expect(again.stderr).not.toMatch(/0 of 0|file\(s\)/);
    await writeFile(path.join(dir, 'twice', 'c.txt'), 'c');
    const third = await upload(args);
    expect(third.stderr).toMatch(/^1 of 1 file uploaded or skipped, 2 files already uploaded$/m);
  });

  it('--overwrite writes the object even when the database holds the file as done (after a rename, after a remote delete); without it the line says "already uploaded, unchanged"', async () => {
    await writeFile(path.join(dir, 'ow.txt'), 'mine');
    emu.objects.putBuffer(emu.bucket, 'ow.txt', Buffer.from('theirs'), {});
    const base = ['ow.txt', '--bucket', emu.bucket, '--db', 'ow.db', '--json'];
    const renamed = await upload([...base, '--conflict', 'rename']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(jsonLines<Line>(renamed.stdout)[0]).toMatchObject({ key: 'ow (1).txt', status: 'done' });

    const again = await upload(base);
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines<Line>(again.stdout)[0]).toMatchObject({ status: 'unchanged' });
    expect(jsonLines<Line>(again.stdout)[0]!.message).toMatch(/already uploaded, unchanged/);
    const text = await upload(['ow.txt', '--bucket', emu.bucket, '--db', 'ow.db']);
    expect(text.stdout).toMatch(/^unchanged +ow \(1\)\.txt .*already uploaded, unchanged/m);
    expect(await content('ow.txt')).toBe('theirs');

    const forced = await upload([...base, '--overwrite']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(jsonLines<Line>(forced.stdout)[0]).toMatchObject({ key: 'ow.txt', status: 'done' });
    expect(await content('ow.txt')).toBe('mine');

    emu.objects.delete(emu.bucket, 'ow.txt');
    const restored = await upload([...base, '--overwrite']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(await content('ow.txt')).toBe('mine');
  });

  it('a file edited since this client uploaded it is a new version: the re-run uploads it under the default --conflict skip; a key someone else wrote is still skipped', async () => {
    const file = path.join(dir, 'ed.txt');
    await writeFile(file, 'version 1');
    const base = ['ed.txt', '--bucket', emu.bucket, '--db', 'ed.db', '--json'];
    expect((await upload(base)).code).toBe(0);
    await writeFile(file, 'version 2, longer');
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    const r = await upload(base);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines<Line>(r.stdout)[0]).toMatchObject({ key: 'ed.txt', status: 'done' });
    expect(await content('ed.txt')).toBe('version 2, longer');

    const other = await upload(['ed.txt', '--bucket', emu.bucket, '--db', 'ed-other.db', '--json']);
    expect(jsonLines<Line>(other.stdout)[0]).toMatchObject({ status: 'skipped' });
  });

  it('a key that already holds exactly this file (another database uploaded it) is done and verified, "already there"; other bytes stay skipped; without --mgr-url the line says the check could not be made (issue 20)', async () => {
    await mkdir(path.join(dir, 'same'), { recursive: true });
    const small = Buffer.from('the very same bytes');
    const big = Buffer.alloc(4 * 1024 * 1024 + 7, 9);
    await writeFile(path.join(dir, 'same', 's.txt'), small);
    await writeFile(path.join(dir, 'same', 'b.bin'), big);
    await writeFile(path.join(dir, 'same', 'o.txt'), 'mine');
    emu.objects.putBuffer(emu.bucket, 'same/s.txt', small, {});
    emu.objects.putBuffer(emu.bucket, 'same/b.bin', big, {});
    emu.objects.putBuffer(emu.bucket, 'same/o.txt', Buffer.from('theirs'), {});
    const putTime = emu.objects.stat(emu.bucket, 'same/b.bin')!.putTime;
    const args = ['same', '--bucket', emu.bucket, '--prefix', 'same/', '--mgr-url', emu.mgrUrl];

    const r = await upload([...args, '--db', 'same.db', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines<Line & { verified?: boolean; warning?: string }>(r.stdout);
    const byKey = new Map(lines.map((l) => [l.key, l]));
    for (const key of ['same/s.txt', 'same/b.bin']) {
      expect(byKey.get(key)).toMatchObject({ status: 'done', verified: true });
      expect(byKey.get(key)!.warning).toMatch(/^already there: /);
    }
    expect(byKey.get('same/o.txt')).toMatchObject({ status: 'skipped', verified: false });
    expect(byKey.get('same/o.txt')!.warning).toContain('it holds other content');
    expect(emu.objects.stat(emu.bucket, 'same/b.bin')!.putTime).toBe(putTime);
    expect(await content('same/o.txt')).toBe('theirs');

    // The text line says it too.
    const text = await upload([...args, '--db', 'same-text.db']);
    expect(text.stdout).toMatch(/^done +same\/s\.txt \(19 bytes\) \S+ \[already there: /m);

    // No management URL: nothing to ask; skipped as before, saying why.
    const unchecked = await upload([
      'same/s.txt',
      '--bucket',
      emu.bucket,
      '--key',
      'same/s.txt',
      '--db',
      'nomgr.db',
      '--json',
    ]);
    const line = jsonLines<Line & { warning?: string }>(unchecked.stdout)[0]!;
    expect(line).toMatchObject({ status: 'skipped' });
    expect(line.warning).toContain('could not be checked');
    expect(line.warning).toContain('management URL');
  });

  it('a symlinked folder named on the command line is followed; a dangling or looping link is one line and exit 2', async () => {
    await mkdir(path.join(dir, 'real-dir/sub'), { recursive: true });
    await writeFile(path.join(dir, 'real-dir/sub/x.txt'), 'x');
    await symlink(path.join(dir, 'real-dir'), path.join(dir, 'dir-link'));
    const r = await upload(['dir-link', '--bucket', emu.bucket, '--prefix', 'sl/', '--db', 'sl.db', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines<Line>(r.stdout).map((l) => [l.key, l.status])).toEqual([['sl/sub/x.txt', 'done']]);

    await symlink(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    await symlink(path.join(dir, 'loop-b'), path.join(dir, 'loop-a'));
    await symlink(path.join(dir, 'loop-a'), path.join(dir, 'loop-b'));
    for (const [name, says] of [
      ['dangling', /dangling is a symbolic link to .*nowhere, which does not exist/],
      ['loop-a', /loop-a is a symbolic link that loops/],
    ] as const) {
      const bad = await upload([name, '--bucket', emu.bucket, '--db', 'sl.db']);
      expect(bad.code, bad.stderr).toBe(2);
      expect(bad.stderr).toMatch(says);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('an unreadable subfolder and an unreadable file are skipped with the reason, the rest is uploaded, exit 1', async () => {
    const tree = path.join(dir, 'partly');
    await mkdir(path.join(tree, 'locked'), { recursive: true });
    await writeFile(path.join(tree, 'ok.txt'), 'ok');
    await writeFile(path.join(tree, 'locked/hidden.txt'), 'no');
    await writeFile(path.join(tree, 'secret.txt'), 'no');
    await chmod(path.join(tree, 'locked'), 0o000);
    await chmod(path.join(tree, 'secret.txt'), 0o000);
    try {
      // Root reads everything: the command runs without that right when the tests run as root.
      const r = await upload(['partly', '--bucket', emu.bucket, '--prefix', 'pt/', '--db', 'pt/pt.db', '--json'], {
        withoutRootReadRights: true,
        env: env({ BLOCKLIFT_DATA: path.join(dir, 'pt-data'), HOME: dir }),
      });
      expect(r.code, r.stderr).toBe(1);
      const lines = jsonLines<Line>(r.stdout);
      expect(lines.filter((l) => l.key).map((l) => [l.key, l.status])).toEqual([['pt/ok.txt', 'done']]);
      const skipped = lines.filter((l) => l.status === 'skipped');
      expect(skipped.map((l) => [path.basename(l.path!), l.code])).toEqual([
        ['locked', 'path-unreadable'],
        ['secret.txt', 'path-unreadable'],
      ]);
      expect(skipped.every((l) => /permission denied/.test(l.reason!))).toBe(true);
      expect(r.stdout).not.toMatch(/0 bytes/);
    } finally {
      await chmod(path.join(tree, 'locked'), 0o755);
    }
  });

  it('an empty --key and a key over the limit are refused before anything is sent, exit 2', async () => {
    await writeFile(path.join(dir, 'k.txt'), 'k');
    const empty = await upload(['k.txt', '--bucket', emu.bucket, '--key', '', '--db', 'k.db']);
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr).toMatch(/--key "" cannot be used: the key is empty/);
    const long = await upload([
      'k.txt',
      '--bucket',
      emu.bucket,
      '--key',
      'k'.repeat(MAX_KEY_BYTES + 1),
      '--db',
      'k.db',
    ]);
    expect(long.code, long.stderr).toBe(2);
    expect(long.stderr).toMatch(/the limit is 750/);
    expect(emu.objects.list(emu.bucket, 'kk')).toHaveLength(0);
  });

  it('the same upload started twice on one database: the second says the queue is in use by the first; a lock left by a killed process is taken over and the upload finishes done', async () => {
    await writeFile(path.join(dir, 'twice.bin'), Buffer.alloc(8 * 1024 * 1024, 7));
    const args = ['twice.bin', '--bucket', emu.bucket, '--db', 'twice.db', '--json'];
    let firstPid = 0;
    const first = upload([...args, '--limit', '256'], { onSpawn: (c) => (firstPid = c.pid!) });
    const lock = path.join(dir, 'twice.db.lock');
    while (!existsSync(lock)) await new Promise((r) => setTimeout(r, 20));
    const second = await upload(args);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is in use by process ${firstPid}`);
    expect(second.stderr).not.toMatch(/disk/);
    process.kill(firstPid, 'SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    expect(existsSync(lock)).toBe(true); // stale: its process is gone

    const third = await upload(args);
    expect(third.code, third.stderr).toBe(0);
    expect(jsonLines<Line>(third.stdout)[0]).toMatchObject({ key: 'twice.bin', status: 'done' });
    const db = new Database(path.join(dir, 'twice.db'), { readonly: true });
    expect(db.prepare("SELECT state FROM transfers WHERE key = 'twice.bin'").all()).toEqual([{ state: 'done' }]);
    db.close();
    expect(existsSync(lock)).toBe(false);
  });
});
