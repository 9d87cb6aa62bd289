/**
 * What the app database's writes cost per small file (issue 19), in this process's CPU
 * microseconds (process.cpuUsage), with nothing of the engine or HTTP around them:
 * `node bin/run-ts.mjs test/bench/store-writes.ts` (BENCH_FILES=3000, BENCH_ROUNDS=4,
 * BENCH_PER_COMMIT=2). The engine's store calls for each file of a small-file run, in the
 * order and the transactions the engine makes them: 32 transfers uploading, then for every
 * commit BENCH_PER_COMMIT ends (finishTransfer: done and verified, in its savepoint) and as
 * many launches (the queue's heads read and marked uploading), as EndBatch and the pump do
 * (a 0 ms run of 500 × 64 KiB made about 2 ends a commit). Each variant runs on a fresh
 * database with one change to the schema, to say what each part of it costs; the rounds
 * alternate the variants. Prints the median per variant. Not part of `npm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addOfflineAccount } from '../helpers/offline-account';
import { openAppDatabase } from '../../src-main/store/app-db';
import { SqliteTransferStore } from '../../src-main/store/transfer-repo';

const FILES = Number(process.env.BENCH_FILES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PER_COMMIT = Number(process.env.BENCH_PER_COMMIT ?? 2);
const RUNNING = 32;

/** What each variant changes in a freshly migrated database before the run. */
const VARIANTS: [string, string][] = [
  ['schema as it is', ''],
  ['without the state-count trigger', 'DROP TRIGGER transfers_count_update'],
  ['without transfers_updated', 'DROP INDEX transfers_updated'],
  ['without transfers_account_state', 'DROP INDEX transfers_account_state'],
  ['without transfers_source_state', 'DROP INDEX transfers_source_state'],
  [
    'without the stored_objects insert',
    'CREATE TRIGGER bench_no_put BEFORE INSERT ON stored_objects BEGIN SELECT RAISE(IGNORE); END',
  ],
];

/** CPU µs per file of the launches and ends of FILES transfers, on a fresh database changed by `sql`. */
function run(sql: string): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bl-store-writes-'));
  const db = openAppDatabase(path.join(dir, 'app.db'));
  try {
    if (sql) db.exec(sql);
    const store = new SqliteTransferStore(db);
    const accountId = addOfflineAccount(db, 'bench');
    const ids = store.insertTransfers(
      Array.from({ length: FILES }, (_, i) => ({
        accountId,
        bucket: 'bench',
        key: `s${i}.bin`,
        localPath: `/tmp/small/s${i}.bin`,
        source: 'cli' as const,
      })),
      { blockSize: 4 << 20, conflict: 'overwrite' },
    );
    const launch = (n: number) => {
      for (const h of store.listTransfers(['queued'], n))
        store.updateTransfer(h.id, { state: 'uploading', lastError: null, warning: null });
    };
    store.batch(() => launch(RUNNING));
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < FILES - RUNNING; i += PER_COMMIT) {
      store.batch(() => {
        for (const id of ids.slice(i, i + PER_COMMIT)) {
          const etag = `Fetag-of-${id}`;
          store.finishTransfer(id, {
            state: 'done',
            key: `s${id}.bin`,
            etag,
            remoteHash: etag,
            returnBody: null,
            warning: null,
            copiedFrom: null,
            size: 65536,
            mtimeMs: 1,
            lastError: null,
            finishedAt: Date.now(),
          });
        }
        // The pump runs in the ends' transaction (EndBatch afterWrites), itself a batch.
        store.batch(() => launch(PER_COMMIT));
      });
    }
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / (FILES - RUNNING);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `store-writes: ${FILES} files, ${PER_COMMIT} ends a commit, ${ROUNDS} rounds, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
const results = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++)
  for (const [name, sql] of VARIANTS) results.set(name, [...(results.get(name) ?? []), run(sql)]);
for (const [name, xs] of results) {
  const s = [...xs].sort((a, b) => a - b);
  const median = (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
  process.stdout.write(
    `${name.padEnd(36)} median ${median.toFixed(0).padStart(4)} µs/file  (${s.map((x) => x.toFixed(0)).join(' ')})\n`,
  );
}
