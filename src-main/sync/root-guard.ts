import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Checks a folder before it becomes a watch root. A root inside another root (or holding
 * one) would upload the same files twice; a root inside the app's data folder would upload
 * the app's own database as it changes. Both are refused with a message saying what to do.
 * The data folder inside a root is allowed: it is left out of that root (see `excludedDirs`).
 */

export type RootRefusalCode =
  | 'root-missing'
  | 'root-not-a-folder'
  | 'root-inside-root'
  | 'root-contains-root'
  | 'root-inside-data-folder'
  | 'root-is-data-folder'
  /** Refused by the service (service/emulator-guard.ts): the emulator would upload its own output forever. */
  | 'root-holds-emulator-data'
  | 'root-inside-emulator-data';

export class RootRefusedError extends Error {
  override readonly name = 'RootRefusedError';
  constructor(
    readonly code: RootRefusalCode,
    message: string,
    /** The folder refused, as the person gave it. */
    readonly path = '',
  ) {
    super(message);
  }
}

/** True when `inner` is `outer` or below it (both absolute, resolved). */
export function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function resolveExisting(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Resolves `folder` (following links) and checks it against the existing roots and the data
 * folder. Returns the resolved path, and the data folder relative to it ('/' form) when the
 * data folder lies inside it.
 */
export async function checkNewRoot(
  folder: string,
  existingRoots: readonly string[],
  dataDir: string | undefined,
): Promise<{ root: string; excludedDirs: string[] }> {
  let root: string;
  try {
    root = await realpath(folder);
  } catch {
    throw new RootRefusedError(
      'root-missing',
      `the folder ${folder} does not exist; create it or check the path`,
      folder,
    );
  }
  if (!(await stat(root)).isDirectory())
    throw new RootRefusedError(
      'root-not-a-folder',
      `${folder} is a file, not a folder; watch the folder that holds it`,
      folder,
    );
  for (const other of existingRoots) {
    const o = await resolveExisting(other);
    if (o === root) continue; // the same root again: the caller reuses it
    if (isInside(root, o))
      throw new RootRefusedError(
        'root-inside-root',
        `${folder} is inside the watched folder ${other}; its files are already uploaded from there`,
        folder,
      );
    if (isInside(o, root))
      throw new RootRefusedError(
        'root-contains-root',
        `${folder} contains the watched folder ${other}; remove that root first or watch a different folder`,
        folder,
      );
  }
  const excludedDirs: string[] = [];
  if (dataDir !== undefined) {
    const data = await resolveExisting(dataDir);
    if (data === root)
      throw new RootRefusedError(
        'root-is-data-folder',
        `${folder} is Blocklift's own data folder; choose another folder to watch`,
        folder,
      );
    if (isInside(root, data))
      throw new RootRefusedError(
        'root-inside-data-folder',
        `${folder} is inside Blocklift's data folder ${dataDir}; choose a folder outside it`,
        folder,
      );
    if (isInside(data, root)) excludedDirs.push(path.relative(root, data).split(path.sep).join('/'));
  }
  return { root, excludedDirs };
}
