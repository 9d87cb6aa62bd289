import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * From the paths a person named (files, folders) to the files to upload with their keys.
 * A named file → prefix + its name (or the given key); a named folder → its tree, keys
 * relative to it. Problems with a named path throw an AddFilesError (nothing is queued);
 * problems inside a tree are collected as skipped entries and the rest goes on.
 */

/** Why adding files was refused as a whole; `code` is for programs, the message says what to do. */
export type AddFilesErrorCode =
  'no-paths' | 'path-not-found' | 'not-a-file' | 'key-needs-one-file' | 'key-collision' | 'key-invalid';

export class AddFilesError extends Error {
  override readonly name = 'AddFilesError';
  constructor(
    readonly code: AddFilesErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Why one path inside a tree was not queued. */
export type SkipCode = 'symlink-in-tree';

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

/** Expands `paths` (relative ones against the process's working directory); `skipped` collects what a walk left out. */
export async function expandPaths(
  paths: readonly string[],
  prefix: string,
  key: string | undefined,
  skipped: SkippedPath[],
): Promise<FileToUpload[]> {
  if (paths.length === 0) throw new AddFilesError('no-paths', 'give at least one file or directory');
  const out: FileToUpload[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    let st;
    try {
      st = await lstat(abs);
    } catch {
      throw new AddFilesError('path-not-found', `${p} does not exist`);
    }
    if (st.isDirectory()) {
      if (key !== undefined)
        throw new AddFilesError('key-needs-one-file', '--key names one file; use --prefix for a directory');
      await walk(abs, abs, prefix, out, skipped);
    } else if (st.isFile() || st.isSymbolicLink()) {
      const target = st.isSymbolicLink() ? await realpath(abs) : abs;
      const ts = st.isSymbolicLink() ? await stat(target) : st;
      out.push({
        localPath: target,
        key: key ?? prefix + path.basename(abs),
        size: ts.size,
        mtimeMs: Math.floor(ts.mtimeMs),
      });
    } else {
      throw new AddFilesError('not-a-file', `${p} is not a file or directory`);
    }
  }
  if (key !== undefined && out.length !== 1)
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
    throw new AddFilesError('path-not-found', `cannot list ${dir}: ${(e as Error).message}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) await walk(root, abs, prefix, out, skipped);
    else if (e.isSymbolicLink()) skipped.push({ path: abs, reason: SYMLINK_SKIP_REASON, code: 'symlink-in-tree' });
    else if (e.isFile()) {
      const st = await stat(abs);
      out.push({
        localPath: abs,
        key: prefix + path.relative(root, abs).split(path.sep).join('/'),
        size: st.size,
        mtimeMs: Math.floor(st.mtimeMs),
      });
    }
  }
}
