import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from '../base/pid-lock';

/**
 * `door.json` in the data folder: how a command line finds the app running on that folder
 * (issue 11, "the CLI and a running app meet on one queue"). The app that serves a door
 * writes it when the door listens and removes it when it stops; the file is 0600, since it
 * holds the door's token. A file whose process is gone (the app was killed) is stale: a
 * reader ignores it (and the next app overwrites it).
 *
 * Shape: `{ url, token, pid, db }`: the door's base URL (http://127.0.0.1:<port>), its access
 * token, the app's process id and the absolute path of the queue database it runs.
 */

export const DOOR_FILE = 'door.json';

export interface DoorInfo {
  url: string;
  token: string;
  pid: number;
  db: string;
}

export function doorFilePath(dataDir: string): string {
  return path.join(dataDir, DOOR_FILE);
}

/**
 * Writes the door file of this process (atomically: a 0600 temp file renamed over it).
 * Returns the function that removes it again, only while it is still this process's (a
 * second app that took over the folder keeps its own).
 */
export function writeDoorFile(dataDir: string, info: Omit<DoorInfo, 'pid'>, pid = process.pid): () => void {
  const file = doorFilePath(dataDir);
  const tmp = `${file}.${pid}.tmp`;
  const body: DoorInfo = { url: info.url, token: info.token, pid, db: path.resolve(info.db) };
  writeFileSync(tmp, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return () => {
    if (readDoorFile(dataDir)?.pid === pid) rmSync(file, { force: true });
  };
}

/** The door file as written, or undefined when it is missing or not one (never throws). */
export function readDoorFile(dataDir: string): DoorInfo | undefined {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(doorFilePath(dataDir), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const d = v as Record<string, unknown>;
  if (typeof d.url !== 'string' || !/^https?:\/\//.test(d.url)) return undefined;
  if (typeof d.token !== 'string' || d.token === '') return undefined;
  if (typeof d.pid !== 'number' || !Number.isInteger(d.pid) || d.pid <= 0) return undefined;
  if (typeof d.db !== 'string' || d.db === '') return undefined;
  return { url: d.url, token: d.token, pid: d.pid, db: d.db };
}

/**
 * The door of an app running on `dbFile` in this data folder, or undefined: no file, a file
 * of a process that is gone, or of an app running another database (`--db`). Whether the
 * door answers is for the caller to find out (door-client.ts); one that does not is stale too.
 */
export function liveDoor(dataDir: string, dbFile: string): DoorInfo | undefined {
  const d = readDoorFile(dataDir);
  if (!d || d.pid === process.pid || !processAlive(d.pid)) return undefined;
  return path.resolve(d.db) === path.resolve(dbFile) ? d : undefined;
}
