import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { END_BATCH_ROWS, EndBatch } from '../../../src-main/engine/end-batch';
import { addOfflineAccount } from '../../helpers/offline-account';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';

let dir: string;
let db: Db;
let store: SqliteTransferStore;
let accountId: number;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-endbatch-'));
  db = openAppDatabase(path.join(dir, 'app.db'));
  store = new SqliteTransferStore(db);
  accountId = addOfflineAccount(db, 'a');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('EndBatch', () => {
  it('records 20,000 ends that come in one turn in transactions of at most END_BATCH_ROWS, with turns of the loop between', async () => {
    const count = 20_000;
    const ids = store.insertTransfers(
      Array.from({ length: count }, (_, i) => ({
        accountId,
        bucket: 'b',
        key: `k${i}`,
        localPath: `/tmp/k${i}`,
        source: 'manual' as const,
      })),
      { blockSize: 4 << 20, conflict: 'skip' },
    );
    // Counts the turns of the loop (setImmediate callbacks) while the ends are recorded.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    let pumps = 0;
    const ends = new EndBatch(store, () => pumps++);
    const turnOf = new Map<number, number>();
    const inTransaction: boolean[] = [];
    const recorded = await Promise.all(
      ids.map((id) =>
        ends.record(() => {
          store.finishTransfer(id, { state: 'done' });
          turnOf.set(turn, (turnOf.get(turn) ?? 0) + 1);
          inTransaction.push(db.inTransaction);
          return 'recorded';
        }),
      ),
    );
    ticking = false;
    expect(recorded.every((r) => r === 'recorded')).toBe(true);
    expect(store.listTransfers(['done'])).toHaveLength(count);
    // Every end in a transaction; none of the turns that wrote held more than one slice.
    expect(inTransaction.every(Boolean)).toBe(true);
    expect(Math.max(...turnOf.values())).toBeLessThanOrEqual(END_BATCH_ROWS);
    expect(turnOf.size).toBe(Math.ceil(count / END_BATCH_ROWS));
    // The engine's successors are started after each slice (in its transaction).
    expect(pumps).toBe(Math.ceil(count / END_BATCH_ROWS));
    // 20,000 real writes and 1,250 turns: seconds on a crowded machine (no timing is judged).
  }, 60_000);

  it('records ends of one turn together, in order, and each gets its own result', async () => {
    const order: number[] = [];
    const ends = new EndBatch(store);
    const results = await Promise.all(
      [0, 1, 2].map((i) =>
        ends.record(() => {
          order.push(i);
          if (i === 1) throw new Error('boom');
          return i === 2 ? 'disk-full' : 'recorded';
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2]);
    expect(results).toEqual(['recorded', undefined, 'disk-full']);
  });
});
