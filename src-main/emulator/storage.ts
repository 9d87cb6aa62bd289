import path from 'node:path';
import { openDatabase, type Db } from '../base/sqlite';
import type { SweepResult } from './admin';
import { BlockStore } from './block-store';
import type { Clock } from './contracts';
import { CtxSigner } from './ctx';
import { lockDataDir } from './data-lock';
import { MergeLog } from './merge';
import { EMULATOR_MIGRATIONS } from './migrations';
import { SqliteObjectStore } from './object-store';

/** What the emulator keeps in its data folder, opened together and closed together. */
export interface EmulatorStorage {
  db: Db;
  objects: SqliteObjectStore;
  blocks: BlockStore;
  merges: MergeLog;
  signer: CtxSigner;
  /** Unmerged blocks and merge records older than `cutoffMs`, and expired objects, go. */
  sweep(cutoffMs: number): SweepResult;
  /** Closes the database and removes emulator.lock (the lock even when the close fails). */
  close(): void;
}

/**
 * Locks `dataDir` (emulator.lock), opens <dataDir>/emulator.db through the emulator's
 * migrations and the stores over it. On failure nothing stays open or locked.
 */
export function openStorage(dataDir: string, clock: Clock, buckets: readonly string[]): EmulatorStorage {
  const unlock = lockDataDir(dataDir);
  let db: Db | undefined;
  try {
    db = openDatabase(path.join(dataDir, 'emulator.db'), EMULATOR_MIGRATIONS);
    const opened = db;
    const objects = new SqliteObjectStore(opened, dataDir, clock, buckets);
    const blocks = new BlockStore(opened, dataDir, clock);
    const merges = new MergeLog(opened, clock);
    return {
      db: opened,
      objects,
      blocks,
      merges,
      signer: CtxSigner.fromDb(opened),
      sweep: (cutoffMs) => ({
        blocks: blocks.purgeOlderThan(cutoffMs),
        objects: objects.sweepExpired(),
        merges: merges.purgeOlderThan(cutoffMs),
      }),
      close: () => {
        try {
          opened.close();
        } finally {
          unlock();
        }
      },
    };
  } catch (e) {
    try {
      db?.close();
    } finally {
      unlock();
    }
    throw e;
  }
}
