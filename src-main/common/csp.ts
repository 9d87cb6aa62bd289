import { APP_CSP } from '../shared/csp';

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

/**
 * The origin of a download domain as tasks/access-url.ts reads it (http:// assumed without
 * a scheme; a path prefix allowed); null when it is not an http(s) URL.
 */
export function downloadOrigin(downloadDomain: string): string | null {
  const domain = downloadDomain.trim();
  if (domain === '') return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `http://${domain}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return SAFE_ORIGIN.test(url.origin) ? url.origin : null;
  } catch {
    return null;
  }
}

/** The media origins of the configured accounts (their download domains). */
export function accountMediaOrigins(accounts: ReadonlyArray<{ downloadDomain: string | null }>): string[] {
  const out: string[] = [];
  for (const a of accounts) {
    const o = a.downloadDomain === null ? null : downloadOrigin(a.downloadDomain);
    if (o) out.push(o);
  }
  return out;
}
