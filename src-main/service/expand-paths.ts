import type { Stats } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { printable, validateKey } from '../shared/keys';

/**
 * From the paths a person named (files, folders) to the files to upload with their keys.
 * A named file → prefix + its name (or the given key); a named folder → its tree, keys
 * relative to it. Problems with a named path throw an AddFilesError (nothing is queued);
 * problems inside a tree are collected as skipped entries and the rest goes on.
 */

/** Why adding files was refused as a whole; `code` is for programs, the message says what to do. */
export type AddFilesErrorCode =
  'no-paths' | 'path-not-found' | 'broken-link' | 'not-a-file' | 'key-needs-one-file' | 'key-collision' | 'key-invalid';

export class AddFilesError extends Error {
  override readonly name = 'AddFilesError';
  constructor(
    readonly code: AddFilesErrorCode,
    message: string,
    /** The named paths the refusal is about (every missing one for 'path-not-found'), as the person gave them. */
    readonly paths: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * Why one path was not queued. `symlink-in-tree` is a rule, not a problem; the others mean
 * a file the person asked for was left out (the CLI exits 1 for them).
 */
export type SkipCode = 'symlink-in-tree' | 'unreadable' | 'not-a-file' | 'key-invalid';

export interface SkippedPath {
  path: string;
  reason: string;
  code: SkipCode;
}

/** One file to upload: its real path, the key it asks for, and what it was when listed. */
export interface FileToUpload {
  localPath: string;
  key: string;
  size: number;
  mtimeMs: number;
}

export const SYMLINK_SKIP_REASON =
  'symbolic link inside a directory: not followed (it could loop or point outside the tree); name the link itself on the command line to upload its target';

function errnoReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'it disappeared while being listed';
  return (e as Error).message;
}

/** A named path, links followed; a broken or looping link is refused in one line. */
async function resolveNamed(p: string): Promise<{ abs: string; target: string; st: Stats }> {
  const abs = path.resolve(p);
  let lst: Stats;
  try {
    lst = await lstat(abs);
  } catch {
    throw new AddFilesError('path-not-found', `${p} does not exist`, [p]);
  }
  if (!lst.isSymbolicLink()) return { abs, target: abs, st: lst };
  try {
    const target = await realpath(abs);
    return { abs, target, st: await stat(target) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const to = await readlink(abs).catch(() => '?');
    if (code === 'ELOOP')
      throw new AddFilesError('broken-link', `${p} is a symbolic link that loops (to ${to}); name its target instead`, [
        p,
      ]);
    throw new AddFilesError(
      'broken-link',
      `${p} is a symbolic link to ${to}, which ${code === 'ENOENT' ? 'does not exist' : `cannot be reached (${errnoReason(e)})`}; fix the link or name the file itself`,
      [p],
    );
  }
}

/** Expands `paths` (relative ones against the process's working directory); `skipped` collects what was left out. */
export async function expandPaths(
  paths: readonly string[],
  prefix: string,
  key: string | undefined,
  skipped: SkippedPath[],
): Promise<FileToUpload[]> {
  if (paths.length === 0) throw new AddFilesError('no-paths', 'give at least one file or directory');
  if (key !== undefined) namedKey(key, '--key');
  const named = [];
  // Every missing path is named in one refusal (nothing is queued): the person removes them
  // all at once, and sending the corrected list again queues each file once.
  const missing: string[] = [];
  for (const p of paths) {
    try {
      named.push({ p, ...(await resolveNamed(p)) });
    } catch (e) {
      if (!(e instanceof AddFilesError && e.code === 'path-not-found')) throw e;
      missing.push(p);
    }
  }
  if (missing.length === 1) throw new AddFilesError('path-not-found', `${missing[0]} does not exist`, missing);
  if (missing.length > 1)
    throw new AddFilesError(
      'path-not-found',
      `${missing.length} of the paths do not exist: ${missing.join(', ')}; nothing was added: remove them and add again`,
      missing,
    );
  const out: FileToUpload[] = [];
  for (const { p, abs, target, st } of named) {
    if (st.isDirectory()) {
      if (key !== undefined)
        throw new AddFilesError('key-needs-one-file', '--key names one file; use --prefix for a directory');
      await walk(target, target, prefix, out, skipped);
    } else if (st.isFile()) {
      const k = namedKey(key ?? prefix + path.basename(abs), `the key of ${p}`);
      if (await readable(target, skipped)) out.push(fileOf(target, k, st));
    } else {
      throw new AddFilesError('not-a-file', `${p} is not a regular file or directory (a device, FIFO or socket?)`, [p]);
    }
  }
  if (key !== undefined && named.length !== 1)
    throw new AddFilesError('key-needs-one-file', '--key names one file; use --prefix for several');
  const seen = new Map<string, string>();
  for (const f of out) {
    const other = seen.get(f.key);
    if (other)
      throw new AddFilesError(
        'key-collision',
        `two files would get the same key "${f.key}": ${other} and ${f.localPath}; name them in separate runs or give a --prefix`,
      );
    seen.set(f.key, f.localPath);
  }
  return out;
}

/** The key of a file the person named: the same rules as a watched file's key, refused as a whole. */
export function namedKey(key: string, what: string): string {
  const r = validateKey(key.normalize('NFC'));
  if (!r.ok) throw new AddFilesError('key-invalid', `${what} "${printable(key)}" cannot be used: ${r.message}`);
  return r.key;
}

const fileOf = (localPath: string, key: string, st: Stats): FileToUpload => ({
  localPath,
  key,
  size: st.size,
  mtimeMs: Math.floor(st.mtimeMs),
});

/** True when the file can be opened for reading; else it is recorded as skipped with the reason. */
async function readable(file: string, skipped: SkippedPath[]): Promise<boolean> {
  try {
    (await open(file, 'r')).close().catch(() => {});
    return true;
  } catch (e) {
    skipped.push({ path: file, reason: `cannot be read: ${errnoReason(e)}`, code: 'unreadable' });
    return false;
  }
}

/** Lists `dir` depth first; a folder or file that cannot be read is skipped with the reason, the rest goes on. */
async function walk(
  root: string,
  dir: string,
  prefix: string,
  out: FileToUpload[],
  skipped: SkippedPath[],
): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    skipped.push({ path: dir, reason: `folder cannot be listed: ${errnoReason(e)}`, code: 'unreadable' });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) await walk(root, abs, prefix, out, skipped);
    else if (e.isSymbolicLink()) skipped.push({ path: abs, reason: SYMLINK_SKIP_REASON, code: 'symlink-in-tree' });
    else if (!e.isFile())
      skipped.push({ path: abs, reason: 'not a regular file (a device, FIFO or socket)', code: 'not-a-file' });
    else await walkFile(root, abs, prefix, out, skipped);
  }
}

async function walkFile(
  root: string,
  abs: string,
  prefix: string,
  out: FileToUpload[],
  skipped: SkippedPath[],
): Promise<void> {
  const k = validateKey((prefix + path.relative(root, abs).split(path.sep).join('/')).normalize('NFC'));
  if (!k.ok) {
    skipped.push({ path: abs, reason: `its key cannot be used: ${k.message}`, code: 'key-invalid' });
    return;
  }
  let st: Stats;
  try {
    st = await stat(abs);
  } catch (e) {
    skipped.push({ path: abs, reason: `cannot be read: ${errnoReason(e)}`, code: 'unreadable' });
    return;
  }
  if (await readable(abs, skipped)) out.push(fileOf(abs, k.key, st));
}
