import type { AccountAccess, StoredObjectLookup } from '../engine/engine';
import type { FmgrAccess } from '../engine/upload-resources';
import { LocalTokenSigner, RemoteTokenProvider, type TokenProvider } from '../engine/tokens';
import { MgrClient, UploadClient } from '../protocol/client';
import type { ProxyChoice } from '../protocol/proxy';
import type { ProxySetting } from '../shared/contract';
import type { AccountRecord, AccountRepo } from '../store/account-repo';
import type { MgrAccount } from '../tasks/deps';
import { SecretError, type SecretStore } from './secrets';

export class AccountError extends Error {
  override readonly name = 'AccountError';
  constructor(
    readonly code: 'account-unknown' | 'account-no-credentials' | SecretError['code'],
    message: string,
  ) {
    super(message);
  }
}

/**
 * Turns account rows into what the engine and trackers need: the upload client and token
 * source (local signing with the resolved secret, or the account's token URL), and the
 * management client. Built once per account and cached; `forget(id)` drops an account
 * whose row changed. Owns every client it made: `close()` closes them.
 * Secrets are resolved here, held only inside the signer and clients, never returned.
 */
export class AccountAccessCache {
  private readonly uploads = new Map<number, AccountAccess & { client: UploadClient; close(): void }>();
  private readonly mgrs = new Map<number, MgrAccount | undefined>();

  /**
   * `proxyOf` is read each time an account's clients are built (after `forget`, the next
   * request); `env` is where a `system` proxy is read from (default process.env).
   */
  constructor(
    private readonly repo: AccountRepo,
    private readonly secrets: SecretStore,
    private readonly proxyOf: (accountId: number) => ProxySetting = () => ({ mode: 'system' }),
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  /** How every request of this account reaches the service (its proxy setting). */
  private proxy(accountId: number): ProxyChoice {
    const p = this.proxyOf(accountId);
    return p.mode === 'system' ? { mode: 'system', env: this.env } : p;
  }

  private record(accountId: number): AccountRecord {
    const a = this.repo.get(accountId);
    if (!a)
      throw new AccountError('account-unknown', `no account with id ${accountId}; add it in the account settings`);
    return a;
  }

  /** The account's secret key, or undefined for a token-URL account. Throws AccountError. */
  private secretOf(a: AccountRecord): string | undefined {
    if (!a.secretRef) return undefined;
    try {
      return this.secrets.resolve(a.secretRef);
    } catch (e) {
      if (e instanceof SecretError) throw new AccountError(e.code, `account "${a.name}": ${e.message}`);
      throw e;
    }
  }

  /** For the engine (EngineOptions.account). Throws AccountError for an unusable account. */
  upload(accountId: number): AccountAccess {
    const known = this.uploads.get(accountId);
    if (known) return known;
    const a = this.record(accountId);
    const proxy = this.proxy(accountId);
    let tokens: TokenProvider;
    let closeTokens = () => {};
    if (a.tokenUrl) {
      const remote = new RemoteTokenProvider(a.tokenUrl, { proxy });
      closeTokens = () => remote.close();
      tokens = remote;
    } else {
      const sk = this.secretOf(a);
      if (!a.accessKey || !sk)
        throw new AccountError(
          'account-no-credentials',
          `account "${a.name}" has neither an access key with a secret key nor a token URL`,
        );
      tokens = new LocalTokenSigner(a.accessKey, sk);
    }
    const client = new UploadClient({ uploadUrl: a.uploadUrl, proxy });
    const access = {
      client,
      tokens,
      stored: this.storedLookup(a),
      fmgr: this.fmgrAccess(a),
      close: () => {
        client.close();
        closeTokens();
      },
    };
    this.uploads.set(accountId, access);
    return access;
  }

  /**
   * How the engine learns what the service stores under a key after a 406: `GET /stat`
   * through the account's management client, which needs a management URL and the secret
   * key (a token-URL account has none to sign with). When it cannot, the lookup says why.
   */
  private storedLookup(a: AccountRecord): StoredObjectLookup {
    return async (bucket, key, signal) => {
      if (!a.mgrUrl) throw new Error(`account "${a.name}" has no management URL to ask the service (stat)`);
      const m = this.mgr(a.id);
      if (!m) throw new Error(`account "${a.name}" has no management URL to ask the service (stat)`);
      return m.client.stat(bucket, key, signal);
    };
  }

  /**
   * How the engine copies on the service an object whose bytes the account already stored
   * (engine/same-bytes.ts): Fmgr submissions are signed with the secret key, so only an
   * account with a management URL and AK/SK has it; a token-URL account uploads every file.
   */
  private fmgrAccess(a: AccountRecord): FmgrAccess | undefined {
    if (!a.mgrUrl || a.tokenUrl || !a.accessKey || !a.secretRef) return undefined;
    const client = () => {
      const m = this.mgr(a.id);
      if (!m) throw new Error(`account "${a.name}" has no management URL`);
      return m.client;
    };
    return {
      fmgrSubmit: (op, ops, opts, signal) => client().fmgrSubmit(op, ops, opts, signal),
      fmgrStatus: (id, signal) => client().fmgrStatus(id, signal),
    };
  }

  /**
   * For the trackers (TrackerDeps.account): undefined when the account has no management
   * URL. A token-URL account gets an unsigned client (status queries need no signature;
   * submissions are refused by the service with a message).
   */
  mgr(accountId: number): MgrAccount | undefined {
    if (this.mgrs.has(accountId)) return this.mgrs.get(accountId);
    const a = this.repo.get(accountId);
    let m: MgrAccount | undefined;
    if (a?.mgrUrl) {
      let sk: string | undefined;
      try {
        sk = this.secretOf(a);
      } catch {
        sk = undefined; // an unresolvable secret: unsigned calls still work, signed ones are refused
      }
      m = {
        client: new MgrClient({
          mgrUrl: a.mgrUrl,
          accessKey: a.accessKey ?? undefined,
          secretKey: sk,
          proxy: this.proxy(accountId),
        }),
        mgrUrl: a.mgrUrl,
      };
    }
    this.mgrs.set(accountId, m);
    return m;
  }

  /** For the notification receiver: the account whose access key signed a notification, with its secret. */
  byAccessKey(accessKey: string): { accountId: number; secretKey: string } | undefined {
    for (const a of this.repo.list()) {
      if (a.accessKey !== accessKey || !a.secretRef) continue;
      try {
        const sk = this.secretOf(a);
        if (sk) return { accountId: a.id, secretKey: sk };
      } catch {
        // try the next account with this access key
      }
    }
    return undefined;
  }

  /** Drops the cached clients of an account (its row changed); closes them. */
  forget(accountId: number): void {
    this.uploads.get(accountId)?.close();
    this.mgrs.get(accountId)?.client.close();
    this.uploads.delete(accountId);
    this.mgrs.delete(accountId);
  }

  close(): void {
    for (const id of new Set([...this.uploads.keys(), ...this.mgrs.keys()])) this.forget(id);
  }
}
