import { existsSync } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { RootRefusedError } from '../sync/root-guard';

/**
 * A watched folder must not hold an emulator's data folder: the emulator writes its objects
 * and database there as it stores what was uploaded, so the watch would upload its own
 * output forever. An emulator data folder is recognised by the files the emulator keeps in
 * it (`emulator.db`, and `emulator.lock` while it runs). The root itself and its parents
 * are checked, and the folders below it down to SEARCH_DEPTH levels (an emulator's --data
 * is a folder a person named, near where they work; a full walk would double a cold scan).
 */

export const EMULATOR_MARKERS = ['emulator.db', 'emulator.lock'] as const;
export const SEARCH_DEPTH = 4;

const isEmulatorDataDir = (dir: string) => EMULATOR_MARKERS.some((m) => existsSync(path.join(dir, m)));

const within = (dir: string, outer: string) => {
  const rel = path.relative(outer, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The emulator data folder that is `root`, holds it, or lies within SEARCH_DEPTH levels
 * below it; undefined when none. Folders in `skip` (absolute, real paths: Blocklift's own
 * data folder, which a watch leaves out and which holds the embedded emulator's data) and
 * what lies below them are not looked at.
 */
export async function findEmulatorDataDir(root: string, skip: readonly string[] = []): Promise<string | undefined> {
  const skipped = (d: string) => skip.some((s) => within(d, s));
  let dir: string;
  try {
    dir = await realpath(root);
  } catch {
    return undefined; // a missing root is reported by the watch itself
  }
  for (let up = dir; ; up = path.dirname(up)) {
    if (!skipped(up) && isEmulatorDataDir(up)) return up;
    if (path.dirname(up) === up) break;
  }
  let level = [dir];
  for (let depth = 1; depth <= SEARCH_DEPTH + 1 && level.length > 0; depth++) {
    const next: string[] = [];
    for (const d of level) {
      if (skipped(d)) continue;
      let entries;
      try {
        entries = await readdir(d, { withFileTypes: true });
      } catch {
        continue; // unreadable: the watch reports it
      }
      if (depth > 1 && entries.some((e) => e.isFile() && (EMULATOR_MARKERS as readonly string[]).includes(e.name)))
        return d;
      for (const e of entries) if (e.isDirectory() && !skipped(path.join(d, e.name))) next.push(path.join(d, e.name));
    }
    level = next;
  }
  return undefined;
}

/**
 * Why `folder` may not be watched when it holds, is or lies inside an emulator's data folder
 * (outside `appDataDir`, whose embedded emulator a watch leaves out with the rest of the data
 * folder): the refusal's code and words, or undefined.
 */
export async function emulatorDataDirRefusal(
  folder: string,
  appDataDir: string,
): Promise<{ code: 'root-inside-emulator-data' | 'root-holds-emulator-data'; message: string } | undefined> {
  let skip = path.resolve(appDataDir);
  skip = await realpath(skip).catch(() => skip);
  const found = await findEmulatorDataDir(folder, [skip]);
  if (!found) return undefined;
  const real = await realpath(folder).catch(() => path.resolve(folder));
  const inside = within(real, found);
  return {
    code: inside ? 'root-inside-emulator-data' : 'root-holds-emulator-data',
    message: `${folder} ${inside ? 'is inside' : 'holds'} the emulator's data folder ${found}: watching it would upload the emulator's own files forever; watch another folder, or give the emulator a --data folder outside it (its default is in Blocklift's data folder)`,
  };
}

/** Throws RootRefusedError with emulatorDataDirRefusal's code and words when it refuses `folder`. */
export async function refuseEmulatorDataDir(folder: string, appDataDir: string): Promise<void> {
  const refused = await emulatorDataDirRefusal(folder, appDataDir);
  if (refused) throw new RootRefusedError(refused.code, refused.message, folder);
}
