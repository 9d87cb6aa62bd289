import path from 'node:path';
import type { EmulatorContext } from './contracts';

/**
 * Mapping between the emulator's public download URLs and its objects, independent of how
 * the server spells an object URL: a candidate key is accepted only when
 * `ctx.objectUrl(bucket, key)` gives back exactly the URL (query and fragment ignored).
 */
export function objectFromUrl(
  ctx: Pick<EmulatorContext, 'objects' | 'objectUrl'>,
  urlText: string,
): { bucket: string; key: string } | undefined {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return undefined;
  }
  url.search = '';
  url.hash = '';
  const bare = url.href;
  for (const bucket of ctx.objects.buckets()) {
    const prefix = ctx.objectUrl(bucket, '');
    if (!bare.startsWith(prefix)) continue;
    const rest = bare.slice(prefix.length);
    for (const key of keyCandidates(rest)) {
      if (key !== '' && sameUrl(ctx.objectUrl(bucket, key), bare)) return { bucket, key };
    }
  }
  return undefined;
}

function keyCandidates(rest: string): string[] {
  const out = [rest];
  try {
    out.push(decodeURIComponent(rest));
  } catch {
    // not percent-encoded text: the raw candidate stays
  }
  try {
    out.push(rest.split('/').map(decodeURIComponent).join('/'));
  } catch {
    // same
  }
  return [...new Set(out)];
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/**
 * Keys of the segments an m3u8 playlist references, in order, without repeats: URI lines
 * (not `#` tags) resolved against the playlist's own key (`seg.ts` next to `a/b.m3u8` is
 * `a/seg.ts`, `/x/seg.ts` is `x/seg.ts`), or absolute URLs of objects in the same bucket.
 * References that leave the bucket or point elsewhere are left out.
 */
export function m3u8SegmentKeys(
  text: string,
  m3u8Key: string,
  ownObject: (url: string) => { bucket: string; key: string } | undefined,
  bucket: string,
): string[] {
  const keys: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    let key: string | undefined;
    if (/^[a-z][a-z0-9+.-]*:/i.test(line)) {
      const own = ownObject(line);
      key = own && own.bucket === bucket ? own.key : undefined;
    } else {
      const noQuery = line.replace(/[?#].*$/, '');
      let decoded = noQuery;
      try {
        decoded = decodeURIComponent(noQuery);
      } catch {
        // keep the raw text
      }
      const joined = decoded.startsWith('/') ? decoded : path.posix.join(path.posix.dirname(m3u8Key), decoded);
      const norm = path.posix.normalize(joined).replace(/^\/+/, '');
      key = norm === '' || norm === '.' || norm.startsWith('../') || norm === '..' ? undefined : norm;
    }
    if (key !== undefined && !keys.includes(key)) keys.push(key);
  }
  return keys;
}
