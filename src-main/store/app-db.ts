import { openDatabase, type Db } from './db';
import { MIGRATIONS } from './migrations/index';

/** Opens the app database (WAL, migrated to the latest schema). The caller closes it. */
export function openAppDatabase(file: string): Db {
  return openDatabase(file, MIGRATIONS);
}
