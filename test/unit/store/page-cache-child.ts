/**
 * The measuring child of page-cache.test.ts: opens an app database at argv[2], fills a
 * scratch table with `argv[3]` MiB of rows, reads it whole twice, and prints how many bytes
 * the second pass read from the kernel (this thread's rchar, /proc/self/task/<pid>/io).
 */
import { readFileSync } from 'node:fs';
import { openAppDatabase } from '../../../src-main/store/app-db';

const [file, mib] = [process.argv[2]!, Number(process.argv[3])];
const db = openAppDatabase(file);
db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
const insert = db.prepare('INSERT INTO scratch (body) VALUES (?)');
const row = Buffer.alloc(1000, 7);
db.transaction(() => {
  for (let i = 0; i < mib * 1024; i++) insert.run(row);
})();
// A fresh connection: what the first pass reads is what the second finds in the cache.
db.close();
const again = openAppDatabase(file);
const all = again.prepare('SELECT sum(length(body)) AS n FROM scratch');
const rchar = () => Number(/^rchar:\s+(\d+)/m.exec(readFileSync(`/proc/self/task/${process.pid}/io`, 'utf8'))![1]);
all.get();
const before = rchar();
const { n } = all.get() as { n: number };
const readAgain = rchar() - before;
again.close();
process.stdout.write(JSON.stringify({ tableBytes: n, readAgain }));
