/**
 * From a file's path relative to its watch root to the object key (checked with the key
 * rules of shared/keys.ts). Pure: no fs, no clock (the file's mtime is an input).
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
import { PLACEHOLDER_RE, validateKey, type KeyResult, type TemplatePlaceholder } from '../shared/keys';

export interface KeyMapping {
  prefix: string;
  template: string;
  timeZone: 'local' | 'utc';
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
