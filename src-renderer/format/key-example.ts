/**
 * The example key the folder options show beside a key template: the template rendered for
 * one sample file (photos/2024/beach.jpg, modified 2024-05-09 13:00). The service checks the
 * template itself when it is saved; this is only what a person reads while typing.
 */
const SAMPLE = { relpath: 'photos/2024/beach.jpg', dir: 'photos/2024', name: 'beach.jpg', stem: 'beach', ext: 'jpg' };
const DATE = { yyyy: '2024', mm: '05', dd: '09', hh: '13', date: '2024-05-09' };

export function exampleKey(prefix: string, template: string): string {
  const values: Record<string, string> = { ...SAMPLE, ...DATE };
  const rendered = (template || '{relpath}')
    .split('/')
    .map((segment) => {
      const onlyPlaceholders = /^(\{[a-z]+\})+$/.test(segment);
      const out = segment.replace(/\{([a-z]+)\}/g, (whole, name: string) => values[name] ?? whole);
      return onlyPlaceholders && out === '' ? null : out;
    })
    .filter((s): s is string => s !== null)
    .join('/');
  return prefix + rendered;
}
