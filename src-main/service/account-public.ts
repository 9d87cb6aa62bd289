import type { AccountView, ProxySetting } from '../shared/contract';
import type { AccountRecord } from '../store/account-repo';

/**
 * What may leave the main process about an account: every view a door or screen gets, the
 * `accounts` event, the support bundle and any log line that names an account are built
 * here, and nowhere else. Never the secret key, nor where it is kept (its reference); the
 * token URL without user name, password and query (a token provider's URL commonly carries
 * a signature or key there); any other URL without user name and password; the secret as
 * "stored · changed <date>".
 */
/** The contract's account view less what only the app's list knows (the local and default marks). */
export type PublicAccount = Omit<AccountView, 'isLocal' | 'isDefault'>;

/**
 * `sessionEnded`: the secret was kept for one session only, by an earlier run
 * (SecretStore.sessionEnded), so the view says it must be given again.
 */
export function publicAccount(a: AccountRecord, proxy: ProxySetting, sessionEnded = false): PublicAccount {
  return {
    id: a.id,
    name: a.name,
    uploadUrl: publicUrl(a.uploadUrl),
    mgrUrl: a.mgrUrl === null ? null : publicUrl(a.mgrUrl),
    downloadDomain: a.downloadDomain === null ? null : publicUrl(a.downloadDomain),
    accessKey: a.accessKey,
    tokenUrl: a.tokenUrl === null ? null : publicTokenUrl(a.tokenUrl),
    hasSecret: a.secretRef !== null,
    secret:
      a.secretRef === null
        ? null
        : secretSummary(a.secretChangedAt, sessionEnded ? 'ended' : sessionOnly(a.secretRef) ? 'session' : 'stored'),
    proxy: proxy.mode === 'url' ? { mode: 'url', url: publicUrl(proxy.url) } : proxy,
  };
}

const KEPT = { stored: 'stored', session: 'this session only', ended: 'session ended' } as const;

/**
 * "stored · changed <YYYY-MM-DD>" (UTC), or "stored" when the date is not known; "this
 * session only" instead of "stored" for a secret kept in memory, "session ended" for one an
 * earlier run kept so.
 */
export function secretSummary(changedAt: number | null, how: keyof typeof KEPT = 'stored'): string {
  const kept = KEPT[how];
  return changedAt === null ? kept : `${kept} · changed ${new Date(changedAt).toISOString().slice(0, 10)}`;
}

/** A reference to a secret kept in memory (the desktop's session store, the CLI's memory:). */
function sessionOnly(ref: string): boolean {
  return ref.startsWith('session:') || ref.startsWith('memory:');
}

/** A URL without its user name and password (a base URL's path and query are kept). */
export function publicUrl(value: string): string {
  return strip(value, false);
}

/** A token provider's URL without user name, password, query and fragment. */
export function publicTokenUrl(value: string): string {
  return strip(value, true);
}

function strip(value: string, dropQuery: boolean): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return '[not a URL]';
  }
  if (!u.username && !u.password && !(dropQuery && (u.search || u.hash))) return value;
  u.username = '';
  u.password = '';
  if (dropQuery) {
    u.search = '';
    u.hash = '';
  }
  return u.href;
}

/**
 * What a text may not show of an account (the support bundle's redactor and the log take
 * them): the token URL's user name, password and each query value as written and
 * percent-decoded, the whole token URL, and a proxy URL's password. The secret key itself
 * is resolved by the caller (it needs the secret store).
 */
export function accountSecretsInUrls(a: AccountRecord, proxy: ProxySetting): string[] {
  const out: string[] = [];
  const fromUrl = (value: string, query: boolean) => {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      return;
    }
    const add = (s: string) => {
      if (s.length < 4) return; // too short to redact without eating ordinary words
      out.push(s);
      try {
        const d = decodeURIComponent(s);
        if (d !== s) out.push(d);
      } catch {
        // not percent-encoded
      }
    };
    add(u.password);
    if (query) {
      add(u.username);
      for (const v of u.searchParams.values()) add(encodeURIComponent(v));
      if (u.search || u.username || u.password) out.push(value);
    }
  };
  if (a.tokenUrl) fromUrl(a.tokenUrl, true);
  if (proxy.mode === 'url') fromUrl(proxy.url, false);
  for (const url of [a.uploadUrl, a.mgrUrl, a.downloadDomain]) if (url) fromUrl(url, false);
  return out;
}
