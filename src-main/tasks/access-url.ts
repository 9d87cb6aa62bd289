/**
 * The access URL of an uploaded object, from the account's download domain and the key:
 * what a VCA job created from the transfers list sends as its source. The domain may be
 * given with or without a scheme (http:// is assumed without one) and with a path prefix.
 * Each key segment is percent-encoded; the slashes between segments are kept.
 */
export class AccessUrlError extends Error {
  override readonly name = 'AccessUrlError';
}

/**
 * A download domain as a base URL: http:// assumed without a scheme, a path prefix kept.
 * Throws AccessUrlError, saying what to set, for one that is empty, not a URL, or not http(s).
 */
export function downloadBase(downloadDomain: string): URL {
  const domain = downloadDomain.trim();
  if (domain === '')
    throw new AccessUrlError(
      'the account has no download domain; set one in the account settings to analyse uploaded videos',
    );
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `http://${domain}`;
  let base: URL;
  try {
    base = new URL(withScheme);
  } catch {
    throw new AccessUrlError(`the download domain "${downloadDomain}" is not a host name or URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new AccessUrlError(`the download domain must be http:// or https://, not ${base.protocol}`);
  return base;
}

/** The origin (scheme, host, port) the access URLs of a download domain have; null when it gives none. */
export function downloadOrigin(downloadDomain: string): string | null {
  try {
    return downloadBase(downloadDomain).origin;
  } catch (e) {
    if (e instanceof AccessUrlError) return null;
    throw e;
  }
}

export function objectAccessUrl(downloadDomain: string, key: string): string {
  const base = downloadBase(downloadDomain);
  if (key === '') throw new AccessUrlError('the object key is empty');
  const prefix = base.pathname.replace(/\/+$/, '');
  const encodedKey = key.split('/').map(encodeURIComponent).join('/');
  return `${base.protocol}//${base.host}${prefix}/${encodedKey}`;
}
