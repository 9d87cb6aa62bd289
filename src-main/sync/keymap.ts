/**
 * From a file's path relative to its watch root to the object key, and the rules a key
 * must meet before it is sent. Pure: no fs, no clock (the file's mtime is an input).
 *
 * key = prefix + render(template), then Unicode NFC. Template placeholders:
 *   {relpath}  relative path with '/' separators      photos/2024/a.jpg
 *   {dir}      its folder ('' at the top level)        photos/2024
 *   {name}     file name                               a.jpg
 *   {stem}     file name without the last extension    a
 *   {ext}      last extension without the dot ('' if none)  jpg
 *   {yyyy} {mm} {dd} {hh}  the file's mtime            2024 05 09 13
 *   {date}     {yyyy}-{mm}-{dd}
 *
 * A '/'-separated segment of the template made only of placeholders that all render
 * empty is dropped with its '/': `{dir}/{name}` maps a top-level `a.jpg` to `a.jpg`, not
 * `/a.jpg`. An empty segment written as such (`a//{name}`, or a prefix ending in '/' and a
 * template starting with '/') gives a key with '//', rejected as `empty-segment`.
 */

export const MAX_KEY_BYTES = 750;

export const TEMPLATE_PLACEHOLDERS = [
  'relpath',
  'dir',
  'name',
  'stem',
  'ext',
  'yyyy',
  'mm',
  'dd',
  'hh',
  'date',
] as const;
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];

/** Why a key cannot be used; code branches on this, the message is for people. */
export type KeyRejectCode =
  'empty' | 'too-long' | 'control-character' | 'invalid-unicode' | 'leading-slash' | 'empty-segment' | 'dot-segment';

export type KeyResult = { ok: true; key: string } | { ok: false; code: KeyRejectCode; message: string };

export interface KeyMapping {
  prefix: string;
  template: string;
  timeZone: 'local' | 'utc';
}

const PLACEHOLDER_RE = /\{([^{}]*)\}/g;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Returns a message when the template uses an unknown placeholder or has a stray brace, else undefined. */
export function checkKeyTemplate(template: string): string | undefined {
  for (const m of template.matchAll(PLACEHOLDER_RE)) {
    const name = m[1] ?? '';
    if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name)) {
      return `unknown placeholder {${name}}; known: ${TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}`;
    }
  }
  if (/[{}]/.test(template.replace(PLACEHOLDER_RE, ''))) return 'unbalanced { or } in the template';
  return undefined;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

function placeholderValues(
  relPath: string,
  mtimeMs: number,
  timeZone: 'local' | 'utc',
): Record<TemplatePlaceholder, string> {
  const slash = relPath.lastIndexOf('/');
  const dir = slash < 0 ? '' : relPath.slice(0, slash);
  const name = relPath.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const hasExt = dot > 0;
  const d = new Date(mtimeMs);
  const utc = timeZone === 'utc';
  const yyyy = String(utc ? d.getUTCFullYear() : d.getFullYear());
  const mm = pad2((utc ? d.getUTCMonth() : d.getMonth()) + 1);
  const dd = pad2(utc ? d.getUTCDate() : d.getDate());
  const hh = pad2(utc ? d.getUTCHours() : d.getHours());
  return {
    relpath: relPath,
    dir,
    name,
    stem: hasExt ? name.slice(0, dot) : name,
    ext: hasExt ? name.slice(dot + 1) : '',
    yyyy,
    mm,
    dd,
    hh,
    date: `${yyyy}-${mm}-${dd}`,
  };
}

/**
 * Checks a key against the service's limits as Blocklift defines them: not empty, at most
 * MAX_KEY_BYTES of UTF-8, no control characters, valid Unicode (no lone surrogates, no
 * U+FFFD from a file name that was not valid UTF-8), no leading '/', no '//', no '.' or '..' segment.
 */
export function validateKey(key: string): KeyResult {
  if (key.length === 0) return { ok: false, code: 'empty', message: 'the key is empty' };
  if (LONE_SURROGATE_RE.test(key) || key.includes('\uFFFD')) {
    return {
      ok: false,
      code: 'invalid-unicode',
      message: 'the name is not valid Unicode (a file name that is not UTF-8?); rename the file',
    };
  }
  const ctl = /[\u0000-\u001f\u007f-\u009f]/.exec(key);
  if (ctl) {
    const cp = ctl[0].codePointAt(0) ?? 0;
    return {
      ok: false,
      code: 'control-character',
      message: `the name contains control character U+${cp.toString(16).padStart(4, '0').toUpperCase()}; rename the file`,
    };
  }
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_KEY_BYTES)
    return {
      ok: false,
      code: 'too-long',
      message: `the key is ${bytes} bytes of UTF-8; the limit is ${MAX_KEY_BYTES}; shorten the path or the prefix`,
    };
  if (key.startsWith('/'))
    return {
      ok: false,
      code: 'leading-slash',
      message: 'the key starts with "/"; remove the leading slash from the prefix or template',
    };
  if (key.includes('//')) {
    return {
      ok: false,
      code: 'empty-segment',
      message: 'the key has an empty path segment ("//"); check that the prefix and the template do not both add a "/"',
    };
  }
  if (key.split('/').some((s) => s === '.' || s === '..')) {
    return {
      ok: false,
      code: 'dot-segment',
      message: 'the key has a "." or ".." path segment; change the prefix or template',
    };
  }
  return { ok: true, key };
}

/**
 * The key of a file. `relPath` uses '/' separators (the scanner guarantees it); the result
 * is NFC-normalized and validated. The template must have passed checkKeyTemplate.
 */
export function mapKey(relPath: string, mtimeMs: number, mapping: KeyMapping): KeyResult {
  const values = placeholderValues(relPath, mtimeMs, mapping.timeZone);
  const render = (t: string) =>
    t.replace(PLACEHOLDER_RE, (_m, name: string) => values[name as TemplatePlaceholder] ?? '');
  const rendered = mapping.template
    .split('/')
    .filter((seg) => !(seg !== '' && seg.replace(PLACEHOLDER_RE, '') === '' && render(seg) === ''))
    .map(render)
    .join('/');
  return validateKey((mapping.prefix + rendered).normalize('NFC'));
}
