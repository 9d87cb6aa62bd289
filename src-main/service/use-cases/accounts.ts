import { randomUUID } from 'node:crypto';
import type { UploadEngine } from '../../engine/engine';
import { ServiceError } from '../../protocol/errors';
import type { AccountInput, AccountTestResult, AccountView } from '../../shared/contract';
import type { AccountInput as AccountRow, AccountRepo } from '../../store/account-repo';
import type { SqliteTransferStore } from '../../store/transfer-repo';
import type { AccountPrefs } from '../account-prefs';
import { publicAccount, publicTokenUrl, publicUrl } from '../account-public';
import type { AccountAccessCache } from '../accounts';
import { AppServiceError, notFound } from '../api/errors';
import { accountView } from './views';
import type { CredentialHolds } from '../credential-holds';
import type { SecretStore } from '../secrets';
import type { SettingsStore } from '../settings-store';

type Check = AccountTestResult['checks'][number];

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

export interface AccountsDeps {
  repo: AccountRepo;
  /** The default account and each account's proxy. */
  prefs: AccountPrefs;
  secrets: SecretStore;
  /** The clients built from the rows (dropped when a row changes). */
  access: AccountAccessCache;
  engine: Pick<UploadEngine, 'forgetAccount'>;
  /** What a refusal of an account's credentials held (released by a save, a passing test, flags given again). */
  holds: Pick<CredentialHolds, 'release'>;
  /** Whether a secret may be stored without a keyring (`storeSecretsWithoutKeyring`). */
  settings: Pick<SettingsStore, 'get'>;
  /** The event log (and so the support bundle): a line per account added, changed or removed. */
  log: Pick<SqliteTransferStore, 'logEvent'>;
  /** The embedded emulator's Local account (read only), when it runs. */
  localAccountId: number | undefined;
}

/**
 * What one signed request brought back, as the account test shows it. `ok`: the service
 * answered and did not refuse the credentials (a 2xx, or a refusal of the probe itself such
 * as an unknown bucket or task, which the service checks after the signature).
 */
async function check(what: Check['what'], url: string, run: () => Promise<unknown>): Promise<Check> {
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  try {
    await run();
    return { what, url, ok: true, status: 200, message: 'accepted', requestId: null, elapsedMs: elapsed() };
  } catch (e) {
    if (e instanceof ServiceError)
      return {
        what,
        url,
        ok: e.kind === 'service' && e.status >= 400 && e.status !== 401 && e.status !== 403,
        status: e.status || null,
        message: e.serviceMessage,
        requestId: e.requestId ?? null,
        elapsedMs: elapsed(),
      };
    return { what, url, ok: false, status: null, message: (e as Error).message, requestId: null, elapsedMs: elapsed() };
  }
}

/**
 * The URL to store: what is stored already when the input is the text the view showed of it
 * (its credentials or query stripped by publicAccount), so a form saved back unchanged keeps
 * them; otherwise the input.
 */
function keptUrl<T extends string | null>(
  input: T,
  stored: string | null | undefined,
  shown: (url: string) => string,
): T | string {
  if (input === null || stored == null) return input;
  return input === shown(stored) ? stored : input;
}

/**
 * The accounts use case (verbs `accounts.*`, the CLI's session account, and which account a
 * verb acts on): rows, secrets and prefs written together; after any change the next request
 * of the engine and of the trackers builds new clients from the row (`changed`), and what a
 * refusal of its credentials held goes on.
 */
export class AccountsUseCase {
  constructor(private readonly d: AccountsDeps) {}

  get localAccountId(): number | undefined {
    return this.d.localAccountId;
  }

  /** The account a verb acts on: the given one, else the default, else the Local one, else the only one; throws 'no-account'. */
  resolve(given: number | undefined): number {
    const repo = this.d.repo;
    if (given !== undefined) {
      if (!repo.get(given)) throw new AppServiceError('not-found', { what: 'Account', id: given });
      return given;
    }
    const def = this.d.prefs.defaultId;
    if (def !== undefined && repo.get(def)) return def;
    if (this.d.localAccountId !== undefined) return this.d.localAccountId;
    const all = repo.list();
    if (all.length === 1) return all[0]!.id;
    throw new AppServiceError('no-account');
  }

  /** The account whose row a lookup prefers: the given one, else the default (none configured: any row will do, 0). */
  preferred(given: number | undefined): number {
    if (given !== undefined) return this.resolve(given);
    try {
      return this.resolve(undefined);
    } catch {
      return 0;
    }
  }

  /** Every account as screens see it (no secret). */
  views(): AccountView[] {
    const { repo, prefs, secrets } = this.d;
    return repo
      .list()
      .map((a) =>
        accountView(
          a,
          prefs,
          this.d.localAccountId,
          prefs.defaultId,
          a.secretRef !== null && secrets.sessionEnded(a.secretRef),
        ),
      );
  }

  /** Adds or changes an account: row, secret (write-only), proxy and default; returns its view. */
  save(input: AccountInput): AccountView {
    const { repo, prefs, secrets } = this.d;
    const existing = input.id !== undefined ? repo.get(input.id) : undefined;
    if (input.id !== undefined && !existing) throw notFound('Account', input.id);
    if (existing && existing.id === this.d.localAccountId) throw new AppServiceError('account-local-readonly');
    const clash = repo.byName(input.name);
    if (clash && clash.id !== existing?.id)
      throw new AppServiceError('account-invalid', { detail: `an account named "${input.name}" exists` });
    let secretRef = existing?.secretRef ?? null;
    let secretChangedAt: number | undefined;
    if (input.secretKey === null) {
      if (secretRef) secrets.forget(secretRef);
      secretRef = null;
    } else if (typeof input.secretKey === 'string') {
      secretRef = secrets.store(`account:${existing?.id ?? randomUUID()}`, input.secretKey, {
        allowWeak: this.d.settings.get().storeSecretsWithoutKeyring,
      });
      secretChangedAt = Date.now();
    }
    const row: AccountRow = {
      name: input.name,
      uploadUrl: keptUrl(input.uploadUrl, existing?.uploadUrl, publicUrl),
      mgrUrl: keptUrl(input.mgrUrl ?? null, existing?.mgrUrl, publicUrl),
      downloadDomain: keptUrl(input.downloadDomain ?? null, existing?.downloadDomain, publicUrl),
      accessKey: input.accessKey ?? null,
      secretRef,
      tokenUrl: keptUrl(input.tokenUrl ?? null, existing?.tokenUrl, publicTokenUrl),
      ...(secretChangedAt === undefined ? {} : { secretChangedAt }),
    };
    let id: number;
    if (existing) {
      repo.update(existing.id, row);
      id = existing.id;
    } else {
      id = repo.upsert(row);
    }
    if (input.proxy) {
      const before = existing ? prefs.proxyOf(existing.id) : undefined;
      const url =
        input.proxy.mode === 'url' && before?.mode === 'url'
          ? keptUrl(input.proxy.url, before.url, publicUrl)
          : undefined;
      prefs.setProxy(id, url === undefined || url === null ? input.proxy : { mode: 'url', url });
    }
    if (input.isDefault === true) prefs.setDefault(id);
    else if (input.isDefault === false && prefs.defaultId === id) prefs.setDefault(undefined);
    // The very next request of the engine and of the trackers uses the new row, and what a
    // refusal of its credentials held goes on with it.
    this.changed(id);
    this.d.holds.release(id);
    this.logAccount(existing ? 'changed' : 'added', id);
    return this.views().find((v) => v.id === id)!;
  }

  /** Removes an account no transfer, root or task uses; its secret and prefs go with it. */
  remove(id: number): void {
    const repo = this.d.repo;
    const a = repo.get(id);
    if (!a) throw notFound('Account', id);
    if (id === this.d.localAccountId) throw new AppServiceError('account-local-readonly');
    const uses = repo.usage(id);
    if (uses > 0) throw new AppServiceError('account-in-use', { name: a.name, count: uses });
    this.logAccount('removed', id);
    repo.remove(id);
    if (a.secretRef) this.d.secrets.forget(a.secretRef);
    this.d.prefs.forget(id);
    this.changed(id);
  }

  /**
   * Signs and sends one request to each host of the account: a 1-byte mkblk to the upload
   * host, a VCA creation for a bucket that does not exist to the management host. A passing
   * test releases what a refusal of the credentials held.
   */
  async test(id: number): Promise<AccountTestResult> {
    const a = this.d.repo.get(id);
    if (!a) throw notFound('Account', id);
    const checks: Check[] = [];
    checks.push(
      await check('upload', publicUrl(a.uploadUrl), async () => {
        const access = this.d.access.upload(id);
        const { token } = await access.tokens.get({ bucket: 'blocklift-account-test', key: 'test', overwrite: true });
        await access.client.mkblk({
          token,
          batch: randomUUID(),
          chunk: new Uint8Array([0]),
          blockSize: 1,
          blockOrder: 0,
        });
      }),
    );
    if (a.mgrUrl) {
      const mgr = this.d.access.mgr(id);
      checks.push(
        await check('manage', publicUrl(a.mgrUrl), async () => {
          if (!mgr) throw new Error('the management host cannot be used');
          // A signed submission the service refuses after checking the signature (no such bucket).
          await mgr.client.vcaCreate({ bucket: 'blocklift-account-test', source: 'http://127.0.0.1/none.mp4' });
        }),
      );
    }
    if (checks.every((c) => c.ok)) this.d.holds.release(id);
    return { checks };
  }

  /**
   * An account given for this run only (CLI flags): upserted by name, its secret kept in
   * memory (a `memory:` reference in the row), never written to disk. Like any account change,
   * the next request of the engine and the trackers uses it (flags given again with another
   * secret replace the cached clients), and what a refusal of its credentials held goes on.
   * Returns its id.
   */
  useSessionAccount(a: SessionAccountInput): number {
    const secretRef = a.secretKey ? this.d.secrets.remember(a.name, a.secretKey) : null;
    const id = this.d.repo.upsert({
      name: a.name,
      uploadUrl: a.uploadUrl,
      mgrUrl: a.mgrUrl ?? null,
      downloadDomain: a.downloadDomain ?? null,
      accessKey: a.accessKey ?? null,
      secretRef,
      tokenUrl: a.tokenUrl ?? null,
    });
    this.changed(id);
    this.d.holds.release(id);
    return id;
  }

  /**
   * After an account row changed (URLs, keys, secret): the next request of the engine and
   * of the trackers builds new clients from the row. Transfers running now keep theirs
   * until they end; every later one, and every poll, uses the new ones.
   */
  changed(accountId: number): void {
    this.d.access.forget(accountId);
    this.d.engine.forgetAccount(accountId);
  }

  /** A line in the event log (and so the support bundle) saying what an account now is, as publicAccount lets it out. */
  private logAccount(what: 'added' | 'changed' | 'removed', id: number): void {
    const a = this.d.repo.get(id);
    if (!a) return;
    try {
      this.d.log.logEvent({
        level: 'info',
        kind: 'account',
        message: `account "${a.name}" ${what}: ${JSON.stringify(publicAccount(a, this.d.prefs.proxyOf(id)))}`,
      });
    } catch {
      // the event log is best effort
    }
  }
}
