import { existsSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DOOR_FILE, liveDoor, readDoorFile, writeDoorFile } from '../../../src-main/service/door-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-door-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const db = () => path.join(dir, 'blocklift.db');
/** Above any pid the kernel hands out: no such process. */
const NO_SUCH_PID = 2 ** 31 - 1;

describe('door.json', () => {
  it('is written 0600 with url, token, pid and the absolute database path, and read back', () => {
    const parentPid = process.ppid;
    writeDoorFile(dir, { url: 'http://127.0.0.1:7420', token: 't0k', db: db() }, parentPid);
    expect(statSync(path.join(dir, DOOR_FILE)).mode & 0o777).toBe(0o600);
    expect(readDoorFile(dir)).toEqual({ url: 'http://127.0.0.1:7420', token: 't0k', pid: parentPid, db: db() });
    // The parent of this test runner is alive and is not this process: a live door for this database.
    expect(liveDoor(dir, db())).toMatchObject({ pid: parentPid });
    // Another database of the same folder (--db) is not that app's queue.
    expect(liveDoor(dir, path.join(dir, 'other.db'))).toBeUndefined();
  });

  it("is removed at exit only while it is still the writer's (a second app's file stays)", () => {
    const remove = writeDoorFile(dir, { url: 'http://127.0.0.1:1', token: 'a', db: db() }, 111);
    writeDoorFile(dir, { url: 'http://127.0.0.1:2', token: 'b', db: db() }, 222);
    remove();
    expect(readDoorFile(dir)?.pid).toBe(222);
    const removeSecond = writeDoorFile(dir, { url: 'http://127.0.0.1:2', token: 'b', db: db() }, 222);
    removeSecond();
    expect(existsSync(path.join(dir, DOOR_FILE))).toBe(false);
  });

  it('of a process that is gone is stale: no live door', () => {
    writeDoorFile(dir, { url: 'http://127.0.0.1:7420', token: 't', db: db() }, NO_SUCH_PID);
    expect(readDoorFile(dir)).toBeDefined();
    expect(liveDoor(dir, db())).toBeUndefined();
  });

  it('missing, not JSON, or missing a field: none', () => {
    expect(readDoorFile(dir)).toBeUndefined();
    const file = path.join(dir, DOOR_FILE);
    for (const body of [
      '{',
      '[]',
      '{"url":"http://x","token":"t","pid":1}',
      '{"url":"ftp://x","token":"t","pid":1,"db":"d"}',
    ]) {
      writeFileSync(file, body);
      expect(readDoorFile(dir), body).toBeUndefined();
    }
  });
});
