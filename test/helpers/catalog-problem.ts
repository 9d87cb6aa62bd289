import { ERROR_CATALOG, formatMessage, isErrorCode } from '../../src-main/shared/errors';

/**
 * What keeps a problem from being said in a front end's language: a code that is not in
 * the error catalog (shared/errors.ts), a placeholder of its template missing from its
 * params (the translation would show a raw `{{name}}`), or an English message that is not
 * the template filled with those params (two places for the words). [] when there is none.
 */
export function catalogProblemFaults(p: {
  code: string;
  message: string;
  params?: Readonly<Record<string, string | number | boolean | null>>;
}): string[] {
  if (!isErrorCode(p.code)) return [`${p.code}: not a code of the error catalog`];
  const template = ERROR_CATALOG[p.code].en;
  const params = p.params ?? {};
  const missing = [...template.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1]!)
    .filter((name) => !Object.prototype.hasOwnProperty.call(params, name));
  if (missing.length) return missing.map((name) => `${p.code}: no param ${name} for its template "${template}"`);
  const filled = formatMessage(template, params);
  return p.message === filled ? [] : [`${p.code}: message "${p.message}" is not its template filled: "${filled}"`];
}
