import path from 'node:path';
import envPaths from 'env-paths';

/**
 * Where Blocklift keeps its data (the queue database `blocklift.db`, the embedded
 * emulator's data in `emulator/`, logs in `logs/`): one folder per user, shared by the
 * desktop app, `blocklift serve` and the command line, so each sees the others' queue.
 *
 *   BLOCKLIFT_DATA set      → that folder (tests set it to a temp folder)
 *   Linux                   → $XDG_DATA_HOME/blocklift, else ~/.local/share/blocklift
 *   macOS                   → ~/Library/Application Support/blocklift
 *   Windows                 → %LOCALAPPDATA%\blocklift\Data
 *
 * A command's `--data <folder>` overrides both; `--db <file>` names the database alone.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.BLOCKLIFT_DATA;
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
  return envPaths('blocklift', { suffix: '' }).data;
}

/**
 * A command's data folder: `--data <folder>`, else the folder of `--db <file>` (a database
 * named alone keeps everything next to it), else defaultDataDir().
 */
export function dataDirFromFlags(flags: { data?: string; db?: string }, env: NodeJS.ProcessEnv = process.env): string {
  if (flags.data) return path.resolve(flags.data);
  if (flags.db) return path.dirname(path.resolve(flags.db));
  return defaultDataDir(env);
}

/** The queue database inside a data folder. */
export function databaseFile(dataDir: string): string {
  return path.join(dataDir, 'blocklift.db');
}

/**
 * Where the door stages files dropped in a browser: <stagingDir>/<batch>/<path as dropped>
 * (headless/staging.ts).
 */
export function stagingDir(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

/**
 * The path a staged file was dropped as ("photos/a.jpg", '/'-separated): its path below its
 * batch folder in `staging` (a staging folder; undefined: nothing is staged here); undefined
 * for a file elsewhere. Compared as given: the queue keeps a staged copy under the staging
 * folder as given even when a link leads to it (the door adds its batch folder, a folder it
 * made, and a named folder that is not a link is walked as named, expand-paths.ts), while a
 * file a person added by naming a link to a staged copy is kept by its real path and is not
 * taken for a dropped one.
 */
export function droppedAs(staging: string | undefined, localPath: string): string | undefined {
  if (staging === undefined) return undefined;
  const rel = path.relative(staging, localPath);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const parts = rel.split(path.sep);
  return parts.length < 2 ? undefined : parts.slice(1).join('/');
}

/**
 * A text about a staged file (an engine failure names the file by the path it read: "<path>
 * does not exist (moved or deleted?)") with that path, wherever it occurs, replaced by the
 * name the file was dropped as: the person chose that name and never the staging folder.
 * The rest, the reason, is kept word for word. Unchanged when `dropped` is undefined (a file
 * that was not dropped).
 */
export function namedAsDropped(text: string, localPath: string, dropped: string | undefined): string {
  return dropped === undefined || localPath === '' ? text : text.split(localPath).join(dropped);
}

/** The folder of log files inside a data folder. */
export function logDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}
