import type { UploadEngine } from '../engine/engine';
import type { AccountRepo } from '../store/account-repo';
import type { AccountAccessCache } from './accounts';
import type { SecretStore } from './secrets';

/** An account given for one run only (CLI flags); its secret stays in memory. */
export interface SessionAccountInput {
  name: string;
  uploadUrl: string;
  mgrUrl?: string;
  downloadDomain?: string;
  accessKey?: string;
  secretKey?: string;
  tokenUrl?: string;
}

export interface CoreAccountsDeps {
  accounts: AccountRepo;
  secrets: SecretStore;
  access: AccountAccessCache;
  engine: Pick<UploadEngine, 'forgetAccount'>;
}

/**
 * After an account row changed (URLs, keys, secret): the next request of the engine and
 * of the trackers builds new clients from the row. Transfers running now keep theirs
 * until they end; every later one, and every poll, uses the new ones.
 */
export function accountChanged(d: CoreAccountsDeps, accountId: number): void {
  d.access.forget(accountId);
  d.engine.forgetAccount(accountId);
}

/**
 * An account given for this run only (CLI flags): upserted by name, its secret kept in
 * memory (a `memory:` reference in the row), never written to disk. Like any account change,
 * the next request of the engine and the trackers uses it (flags given again with another
 * secret replace the cached clients). Returns its id.
 */
export function useSessionAccount(d: CoreAccountsDeps, a: SessionAccountInput): number {
  const secretRef = a.secretKey ? d.secrets.remember(a.name, a.secretKey) : null;
  const id = d.accounts.upsert({
    name: a.name,
    uploadUrl: a.uploadUrl,
    mgrUrl: a.mgrUrl ?? null,
    downloadDomain: a.downloadDomain ?? null,
    accessKey: a.accessKey ?? null,
    secretRef,
    tokenUrl: a.tokenUrl ?? null,
  });
  accountChanged(d, id);
  return id;
}
