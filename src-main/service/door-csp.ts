import { APP_CSP } from '../shared/csp';
import { downloadOrigin } from '../tasks/access-url';
import type { DoorBackend } from './door-backend';

/**
 * The Content-Security-Policy header of a reply of either door (the desktop's app:// protocol,
 * electron/app-protocol.ts, and the headless door's HTTP, headless/server.ts). A page gets
 * `pageCsp` with the origins of the accounts' download domains as they are now (an account
 * added or edited counts from the next page load); any other reply (a script, a style, an
 * image, an API answer) the fixed APP_CSP, without asking for the accounts: a policy on
 * anything but a document has no effect.
 */
export async function doorCsp(
  backend: { accounts: Pick<DoorBackend['accounts'], 'list'> },
  page: boolean,
): Promise<string> {
  if (!page) return APP_CSP;
  const accounts = await backend.accounts.list().catch(() => undefined);
  return pageCsp(accounts?.ok ? accountMediaOrigins(accounts.value) : []);
}

/**
 * The Content-Security-Policy of a renderer page served now: APP_CSP with `media-src 'self'`
 * and the origins the app's videos come from (the review player plays a VCA job's source: the
 * object's URL under its account's download domain, the embedded emulator's among them).
 * Only origins (scheme, host, port) are listed, never a path or a query, so nothing secret
 * can reach the header; an origin that is not plain http(s) is left out.
 */
export function pageCsp(mediaOrigins: readonly string[]): string {
  const origins = [...new Set(mediaOrigins.filter((o) => SAFE_ORIGIN.test(o)))].sort();
  return `${APP_CSP}; media-src ${["'self'", ...origins].join(' ')}`;
}

/** http(s)://host[:port] with nothing a CSP source list could misread (no space, ';', ',', '*', quote). */
const SAFE_ORIGIN = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** The media origins of the configured accounts: those of their access URLs (tasks/access-url.ts). */
export function accountMediaOrigins(accounts: ReadonlyArray<{ downloadDomain: string | null }>): string[] {
  const out: string[] = [];
  for (const a of accounts) {
    const o = a.downloadDomain === null ? null : downloadOrigin(a.downloadDomain);
    if (o) out.push(o);
  }
  return out;
}
