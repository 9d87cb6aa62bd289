import { randomUUID } from 'node:crypto';
import type { AccountTestResult, AccountView } from '../../shared/contract';
import { ServiceError } from '../../protocol/errors';
import type { AccountInput as AccountRow } from '../../store/account-repo';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { AppServiceError, notFound } from './errors';
import { accountView } from './views';
import { publicAccount, publicTokenUrl, publicUrl } from '../account-public';

type Check = AccountTestResult['checks'][number];

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

/** A line in the event log (and so the support bundle) saying what an account now is, as publicAccount lets it out. */
function logAccount(ctx: ServiceContext, what: 'added' | 'changed' | 'removed', id: number): void {
  const a = ctx.core.accounts.get(id);
  if (!a) return;
  try {
    ctx.core.transferStore.logEvent({
      level: 'info',
      kind: 'account',
      message: `account "${a.name}" ${what}: ${JSON.stringify(publicAccount(a, ctx.prefs.proxyOf(id)))}`,
    });
  } catch {
    // the event log is best effort
  }
}

export function accountsArea(ctx: ServiceContext): AreaImpl<'accounts'> {
  const repo = ctx.core.accounts;
  const views = (): AccountView[] =>
    repo
      .list()
      .map((a) =>
        accountView(
          a,
          ctx.prefs,
          ctx.core.localAccountId,
          ctx.prefs.defaultId,
          a.secretRef !== null && ctx.core.secrets.sessionEnded(a.secretRef),
        ),
      );
  const changed = () => ctx.emit('accounts', views());
  return {
    list: () => views(),
    save: (input) => {
      const existing = input.id !== undefined ? repo.get(input.id) : undefined;
      if (input.id !== undefined && !existing) throw notFound('Account', input.id);
      if (existing && existing.id === ctx.core.localAccountId) throw new AppServiceError('account-local-readonly');
      const clash = repo.byName(input.name);
      if (clash && clash.id !== existing?.id)
        throw new AppServiceError('account-invalid', { detail: `an account named "${input.name}" exists` });
      let secretRef = existing?.secretRef ?? null;
      let secretChangedAt: number | undefined;
      if (input.secretKey === null) {
        if (secretRef) ctx.core.secrets.forget(secretRef);
        secretRef = null;
      } else if (typeof input.secretKey === 'string') {
        secretRef = ctx.core.secrets.store(`account:${existing?.id ?? randomUUID()}`, input.secretKey, {
          allowWeak: ctx.core.settingsStore.get().storeSecretsWithoutKeyring,
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
        const before = existing ? ctx.prefs.proxyOf(existing.id) : undefined;
        const url =
          input.proxy.mode === 'url' && before?.mode === 'url'
            ? keptUrl(input.proxy.url, before.url, publicUrl)
            : undefined;
        ctx.prefs.setProxy(id, url === undefined || url === null ? input.proxy : { mode: 'url', url });
      }
      if (input.isDefault === true) ctx.prefs.setDefault(id);
      else if (input.isDefault === false && ctx.prefs.defaultId === id) ctx.prefs.setDefault(undefined);
      // The very next request of the engine and of the trackers uses the new row, and what a
      // refusal of its credentials held goes on with it.
      ctx.core.accountChanged(id);
      ctx.core.credentialHolds.release(id);
      logAccount(ctx, existing ? 'changed' : 'added', id);
      changed();
      return views().find((v) => v.id === id)!;
    },
    remove: ({ id }) => {
      const a = repo.get(id);
      if (!a) throw notFound('Account', id);
      if (id === ctx.core.localAccountId) throw new AppServiceError('account-local-readonly');
      const uses = repo.usage(id);
      if (uses > 0) throw new AppServiceError('account-in-use', { name: a.name, count: uses });
      logAccount(ctx, 'removed', id);
      repo.remove(id);
      if (a.secretRef) ctx.core.secrets.forget(a.secretRef);
      ctx.prefs.forget(id);
      ctx.core.accountChanged(id);
      changed();
      return { removed: true as const };
    },
    test: async ({ id }) => {
      const a = repo.get(id);
      if (!a) throw notFound('Account', id);
      const checks: Check[] = [];
      checks.push(
        await check('upload', publicUrl(a.uploadUrl), async () => {
          const access = ctx.core.uploadAccess(id);
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
        const mgr = ctx.core.mgrAccess(id);
        checks.push(
          await check('manage', publicUrl(a.mgrUrl), async () => {
            if (!mgr) throw new Error('the management host cannot be used');
            // A signed submission the service refuses after checking the signature (no such bucket).
            await mgr.client.vcaCreate({ bucket: 'blocklift-account-test', source: 'http://127.0.0.1/none.mp4' });
          }),
        );
      }
      if (checks.every((c) => c.ok)) ctx.core.credentialHolds.release(id);
      return { checks };
    },
  };
}
