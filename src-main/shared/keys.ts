/**
 * The rules an object key must meet before it is sent, and the placeholders of a watched
 * folder's key template. Pure (no Node, no DOM): the service, the CLI and the renderer's
 * forms check keys with the same words (shared/schemas.ts refines with them); sync/keymap.ts
 * renders templates into keys.
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

/** `{name}` placeholders of a key template (global: use with replace/matchAll only). */
export const PLACEHOLDER_RE = /\{([^{}]*)\}/g;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8 = new TextEncoder();

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
  const bytes = utf8.encode(key).length;
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

/** A name for messages (the CLI's lines, the window's notices): control characters escaped, so one name stays one line. */
export function printable(name: string): string {
  return JSON.stringify(name).slice(1, -1);
}
