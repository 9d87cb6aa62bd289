import { openDatabase, type Db } from './db';
import { MIGRATIONS } from './migrations/index';

/**
 * How much of the app database SQLite keeps in this process's memory, in KiB (better-sqlite3's
 * build sets 16,000 KiB). Pages beyond its own cache SQLite reads again from the kernel's page
 * cache, and a page the kernel has dropped (a page nobody touched for a minute is paged out on
 * machines with proactive reclaim, and any page under memory pressure) is read from the disk,
 * with the main thread waiting. A watched folder's rows are written at the scan and touched
 * again minutes later at their upload, long after the kernel may have dropped them. SQLite
 * fills it only with pages it reads, so a small queue costs what it holds. 48 MiB, not more:
 * the sync bench's 100,000-file index stays under its 300 MiB (store/README.md).
 */
export const APP_DB_CACHE_KIB = 48 * 1024;

/** Opens the app database (WAL, migrated to the latest schema, its page cache sized). The caller closes it. */
export function openAppDatabase(file: string): Db {
  const db = openDatabase(file, MIGRATIONS);
  db.pragma(`cache_size = -${APP_DB_CACHE_KIB}`);
  return db;
}
