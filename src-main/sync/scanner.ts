import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { catalogMessage, type ErrorParams } from '../shared/errors';
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

/** Codes of the error catalog (shared/errors.ts): `message` is the English template filled with `params`. */
export type ScanProblemCode = 'permission-denied' | 'unreadable' | 'symlink-loop' | 'broken-symlink' | 'invalid-name';

export interface ScanProblem {
  relPath: string;
  code: ScanProblemCode;
  message: string;
  params: Record<string, string | number>;
}

function scanProblem<C extends ScanProblemCode>(relPath: string, code: C, params: ErrorParams<C>): ScanProblem {
  return { relPath, code, message: catalogMessage(code, params), params };
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

/** Codes of the error catalog (shared/errors.ts) for a root that cannot be read: its state's reason. */
export type RootUnavailableCode = 'root-missing' | 'root-not-a-folder' | 'root-permission-denied' | 'root-unreadable';

/** The root itself cannot be read: `message` is the catalog's English template of `code` filled with `params`. */
export class RootUnavailableError<C extends RootUnavailableCode = RootUnavailableCode> extends Error {
  override readonly name = 'RootUnavailableError';
  constructor(
    readonly code: C,
    readonly params: ErrorParams<C>,
  ) {
    super(catalogMessage(code, params));
  }
}

const STAT_CONCURRENCY = 128;

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

export function rootUnavailable(root: string, e: unknown): RootUnavailableError {
  const code = errCode(e);
  if (code === 'ENOENT') return new RootUnavailableError('root-missing', { path: root });
  if (code === 'ENOTDIR') return new RootUnavailableError('root-not-a-folder', { path: root });
  if (code === 'EACCES' || code === 'EPERM') return new RootUnavailableError('root-permission-denied', { path: root });
  return new RootUnavailableError('root-unreadable', { path: root, reason: (e as Error)?.message ?? String(e) });
}

const join = (relDir: string, name: string) => (relDir === '' ? name : `${relDir}/${name}`);

/** The state of one walk: options, folders seen (dev:ino), folders still to read, links found. */
interface Walk {
  opts: ScanOptions;
  rootAbs: string;
  visited: Set<string>;
  // Folders still to read, depth first; each carries the dev:ino chain of its ancestors.
  stack: Array<{ relDir: string; ancestors: readonly string[] }>;
  // Followed folder links found while reading the current folder; drained after it is yielded.
  pendingLinks: Array<{ relDir: string; realPath: string }>;
}

/** The folder being read: where it is, its ancestors' dev:ino chain, what it yields. */
interface Folder {
  relDir: string;
  ancestors: readonly string[];
  out: DirScan;
}

export async function* scanTree(opts: ScanOptions): AsyncGenerator<DirScan> {
  const start = opts.startRelDir ?? '';
  const rootAbs = path.resolve(opts.root);
  let rootStat: Stats;
  try {
    rootStat = await stat(rootAbs);
  } catch (e) {
    throw rootUnavailable(rootAbs, e);
  }
  if (!rootStat.isDirectory()) throw new RootUnavailableError('root-not-a-folder', { path: rootAbs });
  const rootId = `${rootStat.dev}:${rootStat.ino}`;
  const walk: Walk = {
    opts,
    rootAbs,
    visited: new Set<string>([rootId]),
    stack: [{ relDir: start, ancestors: [rootId] }],
    pendingLinks: [],
  };
  if (start !== '') {
    try {
      const s = await stat(path.join(rootAbs, start));
      walk.visited.add(`${s.dev}:${s.ino}`);
    } catch {
      return;
    }
  }

  while (walk.stack.length) {
    opts.signal?.throwIfAborted();
    const { relDir, ancestors } = walk.stack.pop()!;
    const folder: Folder = {
      relDir,
      ancestors,
      out: { relDir, files: [], ignoredFiles: 0, ignoredBytes: 0, problems: [] },
    };
    const entries = await readFolder(walk, folder);
    if (entries === 'gone') continue;
    if (entries === 'unreadable') {
      yield folder.out;
      continue;
    }
    for (let i = 0; i < entries.length; i += STAT_CONCURRENCY) {
      opts.signal?.throwIfAborted(); // a folder of 100,000 files stops within one slice too
      const slice = entries.slice(i, i + STAT_CONCURRENCY);
      await Promise.all(slice.map((d) => visitEntry(walk, folder, d)));
    }
    yield folder.out;
    await yieldToLoop();
    for (let link = walk.pendingLinks.shift(); link; link = walk.pendingLinks.shift()) {
      yield { relDir: link.relDir, files: [], ignoredFiles: 0, ignoredBytes: 0, problems: [], linkedDir: link };
    }
  }
}

/**
 * The entries of a folder; 'gone' when it went away while scanning, 'unreadable' when it
 * could not be read (the problem is in its DirScan). Throws RootUnavailableError for the root.
 */
async function readFolder(walk: Walk, folder: Folder): Promise<Dirent[] | 'gone' | 'unreadable'> {
  const { relDir } = folder;
  try {
    return await readdir(path.join(walk.rootAbs, relDir), { withFileTypes: true });
  } catch (e) {
    if (relDir === '') throw rootUnavailable(walk.rootAbs, e);
    const code = errCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'gone';
    const denied = code === 'EACCES' || code === 'EPERM';
    folder.out.problems.push(
      denied
        ? scanProblem(relDir, 'permission-denied', { path: relDir })
        : scanProblem(relDir, 'unreadable', { path: relDir, reason: (e as Error).message }),
    );
    return 'unreadable';
  }
}

/** One entry of a folder: a file to report, a folder to read later, a link to follow or not. */
async function visitEntry(walk: Walk, folder: Folder, d: Dirent): Promise<void> {
  const rel = join(folder.relDir, d.name);
  if (d.name.includes('\uFFFD')) {
    folder.out.problems.push(scanProblem(rel, 'invalid-name', { path: rel }));
    return;
  }
  const abs = path.join(walk.rootAbs, rel);
  const kind = await entryKind(d, abs);
  if (kind === 'link') return visitLink(walk, folder, rel, abs);
  if (kind === 'dir') return visitDir(walk, folder, rel, abs);
  if (kind !== 'file') return; // sockets, fifos, devices, or gone: never uploaded
  try {
    addFile(walk, folder, rel, await lstat(abs));
  } catch (e) {
    if (errCode(e) === 'ENOENT') return;
    // A file (permission denied too: the reason says so; `permission-denied` is a folder's).
    folder.out.problems.push(scanProblem(rel, 'unreadable', { path: rel, reason: (e as Error).message }));
  }
}

/** What an entry is; the file system is asked when the listing does not say (some file systems). */
async function entryKind(d: Dirent, abs: string): Promise<'link' | 'dir' | 'file' | 'other'> {
  if (d.isSymbolicLink()) return 'link';
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) return 'other';
  try {
    const s = await lstat(abs);
    return s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/** A symbolic link: skipped, or followed to a file or (once, loop-safe) to a folder. */
async function visitLink(walk: Walk, folder: Folder, rel: string, abs: string): Promise<void> {
  const { opts } = walk;
  if (opts.symlinks === 'skip') {
    folder.out.ignoredFiles++;
    return;
  }
  let target: Stats;
  try {
    target = await stat(abs);
  } catch (e) {
    folder.out.problems.push(
      scanProblem(rel, errCode(e) === 'ELOOP' ? 'symlink-loop' : 'broken-symlink', { path: rel }),
    );
    return;
  }
  if (target.isFile()) return addFile(walk, folder, rel, target);
  if (!target.isDirectory() || opts.filter.dirReason(rel)) return;
  const id = `${target.dev}:${target.ino}`;
  if (folder.ancestors.includes(id) || walk.visited.has(id)) {
    folder.out.problems.push(scanProblem(rel, 'symlink-loop', { path: rel }));
    return;
  }
  walk.visited.add(id);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    return;
  }
  walk.stack.push({ relDir: rel, ancestors: [...folder.ancestors, id] });
  // Reported as its own DirScan so the watcher adds the target.
  walk.pendingLinks.push({ relDir: rel, realPath: real });
}

/** A folder: read later (once per dev:ino), unless the filter leaves it out. */
async function visitDir(walk: Walk, folder: Folder, rel: string, abs: string): Promise<void> {
  if (walk.opts.filter.dirReason(rel)) return;
  try {
    const s = await lstat(abs);
    const id = `${s.dev}:${s.ino}`;
    if (walk.visited.has(id)) return;
    walk.visited.add(id);
    walk.stack.push({ relDir: rel, ancestors: [...folder.ancestors, id] });
  } catch (e) {
    if (errCode(e) !== 'ENOENT')
      folder.out.problems.push(scanProblem(rel, 'unreadable', { path: rel, reason: (e as Error).message }));
  }
}

function addFile(walk: Walk, folder: Folder, rel: string, s: Stats): void {
  if (walk.opts.filter.fileReason(rel)) {
    folder.out.ignoredFiles++;
    folder.out.ignoredBytes += s.size;
    return;
  }
  folder.out.files.push({ relPath: rel, size: s.size, mtimeMs: s.mtimeMs });
}
