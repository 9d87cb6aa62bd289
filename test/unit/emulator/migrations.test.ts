import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion, type Db } from '../../../src-main/base/sqlite';
import { EMULATOR_MIGRATIONS } from '../../../src-main/emulator/migrations';
import { FmgrTaskStore } from '../../../src-main/emulator/fmgr-store';
import { VcaJobStore } from '../../../src-main/emulator/vca-store';

const tables = (db: Db) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );

describe('emulator migrations', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  const fresh = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-emu-mig-'));
    dirs.push(dir);
    return path.join(dir, 'emulator.db');
  };

  it('create every table of the emulator, the Fmgr tasks and VCA jobs included', async () => {
    const db = openDatabase(await fresh(), EMULATOR_MIGRATIONS);
    try {
      expect(tables(db)).toEqual(
        expect.arrayContaining(['blocks', 'emu_fmgr_tasks', 'emu_vca_jobs', 'merges', 'meta', 'objects']),
      );
      expect(schemaVersion(db)).toBe(EMULATOR_MIGRATIONS.length);
      // The stores only use the tables; they create none.
      const before = tables(db);
      new FmgrTaskStore(db);
      new VcaJobStore(db);
      expect(tables(db)).toEqual(before);
    } finally {
      db.close();
    }
  });

  it('bring up a data folder whose Fmgr and VCA tables were created by an older emulator', async () => {
    const file = await fresh();
    const old = openDatabase(file, EMULATOR_MIGRATIONS.slice(0, 3));
    old.exec(
      "CREATE TABLE emu_fmgr_tasks (id TEXT PRIMARY KEY, op TEXT NOT NULL, notify_url TEXT, force INTEGER NOT NULL, separate INTEGER NOT NULL, code INTEGER NOT NULL, items TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL); INSERT INTO emu_fmgr_tasks VALUES ('t1', 'copy', NULL, 0, 0, 3, '[]', 1, 1)",
    );
    expect(schemaVersion(old)).toBe(3);
    migrate(old, EMULATOR_MIGRATIONS);
    expect(schemaVersion(old)).toBe(EMULATOR_MIGRATIONS.length);
    expect(new FmgrTaskStore(old).get('t1')).toMatchObject({ id: 't1', code: 3 });
    old.close();
  });
});
