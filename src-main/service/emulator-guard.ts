import { existsSync } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';

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

/** The emulator data folder that is `root`, holds it, or lies within SEARCH_DEPTH levels below it; undefined when none. */
export async function findEmulatorDataDir(root: string): Promise<string | undefined> {
  let dir: string;
  try {
    dir = await realpath(root);
  } catch {
    return undefined; // a missing root is reported by the watch itself
  }
  for (let up = dir; ; up = path.dirname(up)) {
    if (isEmulatorDataDir(up)) return up;
    if (path.dirname(up) === up) break;
  }
  let level = [dir];
  for (let depth = 1; depth <= SEARCH_DEPTH + 1 && level.length > 0; depth++) {
    const next: string[] = [];
    for (const d of level) {
      let entries;
      try {
        entries = await readdir(d, { withFileTypes: true });
      } catch {
        continue; // unreadable: the watch reports it
      }
      if (depth > 1 && entries.some((e) => e.isFile() && (EMULATOR_MARKERS as readonly string[]).includes(e.name)))
        return d;
      for (const e of entries) if (e.isDirectory()) next.push(path.join(d, e.name));
    }
    level = next;
  }
  return undefined;
}
