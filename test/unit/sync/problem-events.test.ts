import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setUnexpectedErrorHandler } from '../../../src-main/common/unexpected-error';
import { UploadEngine } from '../../../src-main/engine/engine';
import { etagOfFile } from '../../../src-main/protocol/etag';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { SyncRepo, type SyncFileRecord } from '../../../src-main/store/sync-repo';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import { DiskFullWaits } from '../../../src-main/sync/disk-full-waits';
import type { WatchRootEvent } from '../../../src-main/sync/events';
import { MissingFiles } from '../../../src-main/sync/missing-files';
import { normalizeWatchOptions } from '../../../src-main/sync/options';
import { PathFilter } from '../../../src-main/sync/path-filter';
import { problemEvent, scanProblemEvent, type ProblemEvent } from '../../../src-main/sync/problems';
import type { RemoteOps } from '../../../src-main/sync/remote-ops';
import { claimRename } from '../../../src-main/sync/rename-claim';
import type { RootIdentity } from '../../../src-main/sync/root-indexer';
import { scanTree, type DirScan } from '../../../src-main/sync/scanner';
import { StableFiles } from '../../../src-main/sync/stable-files';
import { WatchRoot } from '../../../src-main/sync/watch-root';
import { catalogProblemFaults } from '../../helpers/catalog-problem';
import { withoutRootReadRights } from '../../helpers/unprivileged';

/**
 * Every problem a watched folder reports reaches the UI by its code and params, and the
 * renderer translates it from them (src-renderer/components/errors.ts): so each must be a
 * code of the error catalog (shared/errors.ts) whose template's placeholders are all in the
 * event's params, and its English message that template filled. The real emitters are
 * driven here; those that need the whole root (a refused row, an empty root, a held scan)
 * are checked by the integration harness on every problem its tests provoke
 * (test/integration/sync/harness.ts). Why a root is unavailable or paused (its state event's
 * reason) is held to the same rule.
 */

const problemsOf = (events: WatchRootEvent[]) => events.filter((e): e is ProblemEvent => e.type === 'problem');

let dir: string;
let db: Db | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-problems-'));
});
afterEach(async () => {
  db?.close();
  db = undefined;
  await chmod(path.join(dir, 'tree/locked'), 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('problem events of watched folders', () => {
  it('the check itself: a missing param, an unknown code or a hand-written message is a fault', () => {
    const ok = problemEvent(1, 'a', 'watch-failed', { path: 'a', reason: 'ENOSPC' });
    expect(ok.message).toBe('cannot watch a: ENOSPC');
    expect(ok.params).toEqual({ path: 'a', reason: 'ENOSPC' });
    expect(catalogProblemFaults(ok)).toEqual([]);
    // What the sync layer sent before: the catalog's disk-full with no {path}.
    expect(catalogProblemFaults({ code: 'disk-full', message: '2 file(s) wait', params: { relPath: 'x' } })).toEqual([
      expect.stringContaining('disk-full: no param path'),
    ]);
    expect(catalogProblemFaults({ code: 'watch-failed', message: 'cannot watch a: x', params: { path: 'a' } })).toEqual(
      [expect.stringContaining('no param reason')],
    );
    expect(catalogProblemFaults({ code: 'no-such-code', message: 'm', params: {} })).toEqual([
      'no-such-code: not a code of the error catalog',
    ]);
    expect(catalogProblemFaults({ ...ok, message: 'cannot watch a' })).toEqual([
      expect.stringContaining('is not its template filled'),
    ]);
    // @ts-expect-error the compiler refuses a param the template needs and lacks
    problemEvent(1, 'a', 'watch-failed', { path: 'a' });
  });

  it('the scanner: links that loop or lead nowhere, a name that is not UTF-8, a folder it may not read', async () => {
    const tree = path.join(dir, 'tree');
    await mkdir(path.join(tree, 'real/sub'), { recursive: true });
    await writeFile(path.join(tree, 'real/sub/f.txt'), 'f');
    await symlink(path.join(tree, 'real'), path.join(tree, 'real/sub/up')); // to an ancestor
    await symlink(path.join(tree, 'self'), path.join(tree, 'self')); // ELOOP
    await symlink(path.join(tree, 'nowhere'), path.join(tree, 'broken'));
    // A name that is not valid UTF-8 (Linux file systems keep the bytes as they are).
    await writeFile(Buffer.from(`${tree}/bad-\xff.txt`, 'latin1'), 'x');
    const filter = new PathFilter({ ignore: [], useDefaultIgnores: true, includeOnly: [], includeHidden: false });
    const scans: DirScan[] = [];
    for await (const d of scanTree({ root: tree, filter, symlinks: 'follow' })) scans.push(d);
    const events = scans.flatMap((d) => d.problems.map((p) => scanProblemEvent(1, p)));
    expect(events.map((e) => [e.relPath, e.code]).sort()).toEqual(
      [
        ['broken', 'broken-symlink'],
        ['self', 'symlink-loop'],
        ['real/sub/up', 'symlink-loop'],
        [(await readdir(tree)).find((n) => n.startsWith('bad-'))!, 'invalid-name'],
      ].sort(),
    );
    expect(events.flatMap(catalogProblemFaults)).toEqual([]);
    expect(events.find((e) => e.code === 'broken-symlink')!.message).toBe('the link broken points to nothing');

    // A folder it may not read (root reads any: then in a child without that right).
    await mkdir(path.join(tree, 'locked'));
    await chmod(path.join(tree, 'locked'), 0o000);
    const [command, args] = withoutRootReadRights(process.execPath, [
      'bin/run-ts.mjs',
      'test/unit/sync/helpers/scan-child.ts',
      tree,
    ]);
    const child = JSON.parse((await promisify(execFile)(command, args)).stdout) as DirScan[];
    const denied = child.flatMap((d) => d.problems).filter((p) => p.code === 'permission-denied');
    expect(denied.map((p) => p.relPath)).toEqual(['locked']);
    expect(denied.map((p) => scanProblemEvent(1, p)).flatMap(catalogProblemFaults)).toEqual([]);
  });

  it('files held by the queue database, by every kind of failure: each said with its code and params', async () => {
    const unexpected: unknown[] = [];
    const restore = setUnexpectedErrorHandler((e) => unexpected.push(e));
    const failures: Array<[Error, string]> = [
      [Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'queue-disk-full'],
      [Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 'queue-busy'],
      [Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), 'queue-io-error'],
      [Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }), 'queue-damaged'],
      [new Error('a bug'), 'queue-failed'],
    ];
    try {
      for (const [failure, code] of failures) {
        const events: WatchRootEvent[] = [];
        const diskFull = new DiskFullWaits();
        const stable = new StableFiles({
          rootId: 1,
          windowMs: 1000,
          observeFile: async () => ({ size: 1, mtimeMs: 0 }),
          admit: () => Promise.reject(failure),
          closed: () => false,
          diskFull,
          emit: (e) => events.push(e),
        });
        // Written long ago: ready at once, admitted, refused.
        stable.observe([
          { relPath: 'a.txt', obs: { size: 1, mtimeMs: 0 } },
          { relPath: 'b.txt', obs: { size: 1, mtimeMs: 0 } },
        ]);
        for (let i = 0; i < 20 && events.length === 0; i++) await new Promise((r) => setImmediate(r));
        stable.close();
        diskFull.clear();
        const problems = problemsOf(events);
        expect(problems.map((p) => [p.relPath, p.code])).toEqual([['a.txt', code]]);
        expect(problems.flatMap(catalogProblemFaults)).toEqual([]);
        if (code === 'queue-disk-full') expect(problems[0]!.params).toEqual({ count: 2 });
        else expect(problems[0]!.params).toEqual({ detail: expect.stringContaining(failure.message) });
      }
    } finally {
      restore();
    }
    expect(unexpected).toEqual([failures[4]![0]]);
  });

  describe('with an index', () => {
    let repo: SyncRepo;
    let root: RootIdentity;
    const uploaded = (relPath: string, size: number, etag: string): SyncFileRecord => ({
      relPath,
      size,
      mtimeMs: 1,
      etag,
      remoteKey: `up/${relPath}`,
      state: 'missing',
      transferId: null,
      errorCode: null,
      errorMessage: null,
      missingSince: 1,
    });
    const refusing: RemoteOps = {
      deleteObject: () => Promise.reject(new Error('Fmgr delete failed: no such bucket')),
      relocateObject: () => Promise.reject(new Error('Fmgr copy failed: quota')),
    };
    beforeEach(() => {
      db = openAppDatabase(path.join(dir, 'app.db'));
      repo = new SyncRepo(db);
      const r = repo.addRoot({ path: path.join(dir, 'tree'), accountId: 1, bucket: 'b', prefix: 'up/', options: {} });
      root = { id: r.id, path: r.path, accountId: 1, bucket: 'b', prefix: 'up/' };
    });

    it('a remote delete that fails, or that is not wired', async () => {
      repo.putFiles(root.id, [uploaded('gone.txt', 3, 'E1')]);
      for (const remote of [refusing, undefined]) {
        const events: WatchRootEvent[] = [];
        const missing = new MissingFiles({
          root,
          options: { localDelete: 'delete-remote' },
          repo,
          remote,
          emit: (e) => events.push(e),
        });
        await missing.finalize(10);
        const problems = problemsOf(events);
        expect(problems.map((p) => [p.relPath, p.code])).toEqual([
          ['gone.txt', remote ? 'delete-failed' : 'delete-not-wired'],
        ]);
        expect(problems.flatMap(catalogProblemFaults)).toEqual([]);
        expect(problems[0]!.params).toMatchObject({ key: 'up/gone.txt' });
      }
    });

    it('a watched folder removed while watched, and paused by the user: its state says why by code', async () => {
      const folder = path.join(dir, 'tree');
      await mkdir(folder);
      const engine = new UploadEngine({
        store: new SqliteTransferStore(db!),
        account: () => {
          throw new Error('not started: nothing uploads here');
        },
      });
      const watched = new WatchRoot({
        record: repo.getRoot(root.id)!,
        options: normalizeWatchOptions({}),
        repo,
        queue: engine,
        control: engine,
        // @parcel/watcher's addon loads in one thread of a process only, and watcher.test.ts
        // may hold it in another of this project's threads: the root's presence is what counts here.
        backend: 'chokidar',
        housekeepingMs: 50,
      });
      const states: Array<Extract<WatchRootEvent, { type: 'state' }>> = [];
      watched.on((e) => {
        if (e.type === 'state') states.push(e);
      });
      const until = async (state: string) => {
        for (let i = 0; i < 200 && watched.state !== state; i++) await new Promise((r) => setTimeout(r, 25));
        expect(watched.state).toBe(state);
      };
      const reasonOf = (e: (typeof states)[number]) => ({
        code: e.reasonCode ?? '(no code)',
        message: e.reason ?? '',
        params: e.reasonParams ?? {},
      });
      try {
        await watched.start();
        expect(watched.state).toBe('watching');
        expect(states.at(-1)).toMatchObject({ state: 'watching', reason: null, reasonCode: null, reasonParams: null });

        // The folder goes away (renamed: gone from its path, as an unplugged drive).
        await rename(folder, `${folder}-away`);
        await until('unavailable');
        const gone = states.at(-1)!;
        expect(gone).toMatchObject({
          state: 'unavailable',
          reasonCode: 'root-missing',
          reasonParams: { path: folder },
        });
        expect(gone.reason).toBe(
          `the folder ${folder} is not there (unplugged drive or removed?); watching resumes when it returns`,
        );
        expect(catalogProblemFaults(reasonOf(gone))).toEqual([]);
        // Stored with its code: a restart shows it again.
        expect(repo.getRoot(root.id)).toMatchObject({
          unavailableReason: gone.reason,
          unavailableCode: 'root-missing',
          unavailableParams: { path: folder },
        });

        await rename(`${folder}-away`, folder);
        await until('watching');
        expect(repo.getRoot(root.id)).toMatchObject({ unavailableReason: null, unavailableCode: null });

        await watched.pause();
        const paused = states.at(-1)!;
        expect(paused).toMatchObject({
          state: 'paused',
          reason: 'paused by the user',
          reasonCode: 'root-paused',
          reasonParams: {},
        });
        expect(catalogProblemFaults(reasonOf(paused))).toEqual([]);
        expect(watched.stateReason).toEqual({ code: 'root-paused', message: 'paused by the user', params: {} });
      } finally {
        await watched.close();
        await engine.close();
      }
    });

    it('a server-side copy or move of a renamed file that fails', async () => {
      await mkdir(path.join(dir, 'tree'));
      await writeFile(path.join(dir, 'tree/new.txt'), 'same bytes');
      const { etag } = await etagOfFile(path.join(dir, 'tree/new.txt'));
      const size = (await readFile(path.join(dir, 'tree/new.txt'))).length;
      repo.putFiles(root.id, [uploaded('old.txt', size, etag)]);
      for (const [localDelete, code] of [
        ['keep', 'rename-copy-failed'],
        ['delete-remote', 'rename-move-failed'],
      ] as const) {
        const events: WatchRootEvent[] = [];
        const claimed = await claimRename(
          {
            root,
            options: { rename: 'server-side', localDelete },
            repo,
            remote: refusing,
            emit: (e) => events.push(e),
          },
          { relPath: 'new.txt', size, mtimeMs: 2 },
          'up/new.txt',
        );
        expect(claimed).toBe(false);
        const problems = problemsOf(events);
        expect(problems.map((p) => [p.relPath, p.code])).toEqual([['new.txt', code]]);
        expect(problems.flatMap(catalogProblemFaults)).toEqual([]);
        expect(problems[0]!.message).toBe(
          `server-side ${localDelete === 'keep' ? 'copy' : 'move'} from up/old.txt failed (Fmgr copy failed: quota); uploading instead`,
        );
      }
    });
  });
});
