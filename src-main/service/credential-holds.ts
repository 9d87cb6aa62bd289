import { RUNNING_STATES } from '../engine/snapshot';
import type { CoreProblem } from '../shared/events';
import type { TransferSnapshot } from '../shared/models';
import type { TransferQueryRepo } from '../store/transfer-query';
import type { Pauses } from './pauses';

/**
 * The engine's failure codes (engine/retry.ts) that mean the service refused an account's
 * credentials: a 401 that a fresh token did not cure, the token URL's 401, a 403.
 */
export const CREDENTIAL_REFUSALS: readonly string[] = ['token-rejected', 'token-provider-refused', 'forbidden'];

/**
 * Whether a transfer's error says the account's credentials were refused, by its code (an
 * expired token, `token-expired`, is the clock's fault, not the keys').
 */
export function isCredentialRefusal(e: { code: string } | null): boolean {
  return e !== null && CREDENTIAL_REFUSALS.includes(e.code);
}

export interface CredentialHoldsDeps {
  repo: Pick<TransferQueryRepo, 'accountTransfers'>;
  pauses: Pick<Pauses, 'pause' | 'resume'>;
  accountName: (accountId: number) => string | undefined;
  problem: (p: CoreProblem) => void;
}

/**
 * Pause reason `error`: when the service refuses an account's credentials, its other
 * transfers would only fail the same way, one by one. So the first refusal holds the
 * account: its queued and running transfers are paused with reason `error` (persisted, so
 * they stay held across a restart), a transfer queued for it later waits with them, and one
 * problem `account-credentials-refused` tells the user what to fix. `release` (the account
 * saved, a passing accounts.test, the CLI's account flags given again) resumes them; the
 * transfer whose failure caused the hold keeps its error until the user retries it. Transfers of the CLI (source `cli`) are never
 * held: the CLI fails them and exits with its code.
 */
export class CredentialHolds {
  /** Accounts held in this run (after a restart, the rows paused for `error` still wait for a release). */
  private readonly held = new Set<number>();

  constructor(private readonly d: CredentialHoldsDeps) {}

  /** Every change of a transfer: a refusal holds its account; a transfer queued for a held account waits. */
  transferChanged(t: TransferSnapshot): void {
    if (t.source === 'cli') return;
    if (t.state === 'failed' && isCredentialRefusal(t.lastError)) this.hold(t);
    else if (t.state === 'queued' && this.held.has(t.accountId)) this.d.pauses.pause(t.id, 'error');
  }

  /** Whether the account is held in this run. */
  isHeld(accountId: number): boolean {
    return this.held.has(accountId);
  }

  /**
   * The account's credentials may work again: resumes what the hold paused. The transfers
   * that failed with the refusal stay failed with their reason (the user retries them).
   * Returns how many resumed.
   */
  release(accountId: number): number {
    this.held.delete(accountId);
    let n = 0;
    const paused = this.d.repo.accountTransfers({ accountId, states: ['paused'], pausedBy: 'error' });
    for (const id of paused) if (this.d.pauses.resume(id, 'error')) n++;
    return n;
  }

  private hold(cause: TransferSnapshot): void {
    const accountId = cause.accountId;
    const first = !this.held.has(accountId);
    this.held.add(accountId);
    const active = this.d.repo.accountTransfers({
      accountId,
      states: ['queued', ...RUNNING_STATES],
      exceptSource: 'cli',
    });
    let count = 0;
    for (const id of active) if (this.d.pauses.pause(id, 'error')) count++;
    if (!first) return;
    const account = this.d.accountName(accountId) ?? `#${accountId}`;
    const detail = cause.lastError?.message ?? '';
    this.d.problem({
      code: 'account-credentials-refused',
      message: `The service refused the credentials of the account ${account} (${detail}); its uploads are held (${count} now) until the account is saved again or passes a test.`,
      transferId: cause.id,
      params: { account, accountId, detail },
    });
  }
}
