import { AccountRepo } from '../../src-main/store/account-repo';
import type { Db } from '../../src-main/store/db';

/**
 * Adds an account row for tests (and bench tools) that need one to hang transfers on, and
 * returns its id. Nothing is ever sent to it: its upload URL is port 1 of 127.0.0.1.
 */
export function addOfflineAccount(db: Db, name: string): number {
  return new AccountRepo(db).upsert({
    name,
    uploadUrl: 'http://127.0.0.1:1',
    mgrUrl: null,
    downloadDomain: null,
    accessKey: 'ak',
    secretRef: null,
    tokenUrl: null,
  });
}
