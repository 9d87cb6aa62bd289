import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { PathFilter } from './path-filter';

/**
 * Walks a watch root and reports, folder by folder, the files to consider. Asynchronous and
 * yielding to the event loop between folders, so a tree of 100,000 files does not block the
 * process. Never throws for a problem inside the tree (a folder it cannot read, a broken or
 * looping link): it reports it for that path and goes on. Throws RootUnavailableError when
 * the root itself cannot be read.
 */

export interface ScannedFile {
  /** Relative to the root, '/' separators. */
  relPath: string;
  size: number;
  mtimeMs: number;
}

export type ScanProblemCode = 'permission-denied' | 'unreadable' | 'symlink-loop' | 'broken-symlink' | 'invalid-name';

export interface ScanProblem {
  relPath: string;
  code: ScanProblemCode;
  message: string;
}

/** One folder's worth of results. */
export interface DirScan {
  relDir: string;
  files: ScannedFile[];
  ignoredFiles: number;
  ignoredBytes: number;
  problems: ScanProblem[];
  /** A followed symbolic link to a folder: the watcher must watch `realPath` for `relDir`. */
  linkedDir?: { relDir: string; realPath: string };
}

export interface ScanOptions {
  root: string;
  filter: PathFilter;
  symlinks: 'skip' | 'follow';
  /** Start below the root (a folder that just appeared); '' for the whole root. */
  startRelDir?: string;
  signal?: AbortSignal;
}

export type RootUnavailableCode = 'root-missing' | 'root-not-a-folder' | 'root-permission-denied' | 'root-unreadable';

export class RootUnavailableError extends Error {
  override readonly name = 'RootUnavailableError';
  constructor(
    readonly code: RootUnavailableCode,
    message: string,
  ) {
    super(message);
  }
}

const STAT_CONCURRENCY = 128;

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

export function rootUnavailable(root: string, e: unknown): RootUnavailableError {
  const code = errCode(e);
  if (code === 'ENOENT')
    return new RootUnavailableError(
      'root-missing',
      `the folder ${root} is not there (unplugged drive or removed?); watching resumes when it returns`,
    );
  if (code === 'ENOTDIR') return new RootUnavailableError('root-not-a-folder', `${root} is not a folder`);
  if (code === 'EACCES' || code === 'EPERM')
    return new RootUnavailableError('root-permission-denied', `permission denied reading ${root}`);
  return new RootUnavailableError('root-unreadable', `cannot read ${root}: ${(e as Error)?.message ?? String(e)}`);
}

const join = (relDir: string, name: string) => (relDir === '' ? name : `${relDir}/${name}`);

export async function* scanTree(opts: ScanOptions): AsyncGenerator<DirScan> {
  const start = opts.startRelDir ?? '';
  const rootAbs = path.resolve(opts.root);
  let rootStat: Stats;
  try {
    rootStat = await stat(rootAbs);
  } catch (e) {
    throw rootUnavailable(rootAbs, e);
  }
  if (!rootStat.isDirectory()) throw new RootUnavailableError('root-not-a-folder', `${rootAbs} is not a folder`);
  const visited = new Set<string>([`${rootStat.dev}:${rootStat.ino}`]);
  // Followed folder links found while reading the current folder; drained after it is yielded.
  const pendingLinks: Array<{ relDir: string; realPath: string }> = [];
  // Folders still to read, depth first; each carries the dev:ino chain of its ancestors.
  const stack: Array<{ relDir: string; ancestors: readonly string[] }> = [
    { relDir: start, ancestors: [`${rootStat.dev}:${rootStat.ino}`] },
  ];
  if (start !== '') {
    try {
      const s = await stat(path.join(rootAbs, start));
      visited.add(`${s.dev}:${s.ino}`);
    } catch {
      return;
    }
  }

  while (stack.length) {
    opts.signal?.throwIfAborted();
    const { relDir, ancestors } = stack.pop()!;
    const out: DirScan = { relDir, files: [], ignoredFiles: 0, ignoredBytes: 0, problems: [] };
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(rootAbs, relDir), { withFileTypes: true });
    } catch (e) {
      if (relDir === '') throw rootUnavailable(rootAbs, e);
      const code = errCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // went away while scanning
      const denied = code === 'EACCES' || code === 'EPERM';
      out.problems.push({
        relPath: relDir,
        code: denied ? 'permission-denied' : 'unreadable',
        message: denied
          ? `permission denied reading folder ${relDir}; its files are not uploaded`
          : `cannot read folder ${relDir}: ${(e as Error).message}`,
      });
      yield out;
      continue;
    }

    for (let i = 0; i < entries.length; i += STAT_CONCURRENCY) {
      const slice = entries.slice(i, i + STAT_CONCURRENCY);
      await Promise.all(slice.map((d) => visit(d)));
    }
    yield out;
    await yieldToLoop();

    async function visit(d: Dirent): Promise<void> {
      const rel = join(relDir, d.name);
      if (d.name.includes('\uFFFD')) {
        out.problems.push({
          relPath: rel,
          code: 'invalid-name',
          message: `the name of ${rel} is not valid UTF-8; rename it to upload it`,
        });
        return;
      }
      const abs = path.join(rootAbs, rel);
      let isLink = d.isSymbolicLink();
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (
        !isLink &&
        !isDir &&
        !isFile &&
        !d.isFIFO() &&
        !d.isSocket() &&
        !d.isBlockDevice() &&
        !d.isCharacterDevice()
      ) {
        // Unknown type (some file systems): ask.
        try {
          const s = await lstat(abs);
          isLink = s.isSymbolicLink();
          isDir = s.isDirectory();
          isFile = s.isFile();
        } catch {
          return;
        }
      }
      if (isLink) {
        if (opts.symlinks === 'skip') {
          out.ignoredFiles++;
          return;
        }
        let target: Stats;
        try {
          target = await stat(abs);
        } catch (e) {
          const loop = errCode(e) === 'ELOOP';
          out.problems.push({
            relPath: rel,
            code: loop ? 'symlink-loop' : 'broken-symlink',
            message: loop ? `the link ${rel} points to itself` : `the link ${rel} points to nothing`,
          });
          return;
        }
        if (target.isDirectory()) {
          if (opts.filter.dirReason(rel)) return;
          const id = `${target.dev}:${target.ino}`;
          if (ancestors.includes(id) || visited.has(id)) {
            out.problems.push({
              relPath: rel,
              code: 'symlink-loop',
              message: `the link ${rel} leads to a folder already watched (a loop or a second path to it); not followed`,
            });
            return;
          }
          visited.add(id);
          let real: string;
          try {
            real = await realpath(abs);
          } catch {
            return;
          }
          stack.push({ relDir: rel, ancestors: [...ancestors, id] });
          // Reported as its own DirScan so the watcher adds the target.
          pendingLinks.push({ relDir: rel, realPath: real });
          return;
        }
        if (target.isFile()) return addFile(rel, target);
        return;
      }
      if (isDir) {
        if (opts.filter.dirReason(rel)) return;
        try {
          const s = await lstat(abs);
          const id = `${s.dev}:${s.ino}`;
          if (visited.has(id)) return;
          visited.add(id);
          stack.push({ relDir: rel, ancestors: [...ancestors, id] });
        } catch (e) {
          if (errCode(e) !== 'ENOENT')
            out.problems.push({
              relPath: rel,
              code: 'unreadable',
              message: `cannot read ${rel}: ${(e as Error).message}`,
            });
        }
        return;
      }
      if (!isFile) return; // sockets, fifos, devices: never uploaded
      try {
        addFile(rel, await lstat(abs));
      } catch (e) {
        const code = errCode(e);
        if (code === 'ENOENT') return;
        out.problems.push({
          relPath: rel,
          code: code === 'EACCES' ? 'permission-denied' : 'unreadable',
          message: `cannot read ${rel}: ${(e as Error).message}`,
        });
      }
    }

    function addFile(rel: string, s: Stats): void {
      if (opts.filter.fileReason(rel)) {
        out.ignoredFiles++;
        out.ignoredBytes += s.size;
        return;
      }
      out.files.push({ relPath: rel, size: s.size, mtimeMs: s.mtimeMs });
    }

    for (let link = pendingLinks.shift(); link; link = pendingLinks.shift()) {
      yield { relDir: link.relDir, files: [], ignoredFiles: 0, ignoredBytes: 0, problems: [], linkedDir: link };
    }
  }
}
